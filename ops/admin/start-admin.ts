import type { Logger } from "pino";
import type { NodeState } from "../../actors/runtime/index.ts";
import type { NodeConfig } from "../config.ts";
import { AdminServer } from "./admin-server.ts";
import type { DrainHook } from "./drain-hook.ts";
import { clusterViewOf, httpPeerFetch } from "./dashboard/cluster-view.ts";
import { dashboardPages } from "./dashboard/dashboard-pages.ts";
import { fleetViewOf, type FleetSource } from "./dashboard/fleet-view.ts";
import type { NodeMetrics } from "./node-metrics.ts";
import type { NodeStatus } from "./node-status.ts";
import { ServerApi, type ServerApiDeps } from "./server-api.ts";
import { foyerVersion } from "./version.ts";

/** What a node's admin API reports on and drives. */
export interface AdminParts {
  readonly metrics: NodeMetrics;
  /** The runtime's view of the node (its draining flag). */
  readonly node: NodeState;
  /** The WebSocket URL players reach the node at. */
  readonly url: string;
  readonly drain?: DrainHook;
  /** The node's drain, once started. */
  readonly drainProgress?: () => NodeStatus["drain"];
  /** The fleet as this node sees it (`GET /fleet`, the dashboard); absent on an embedded node. */
  readonly fleet?: FleetSource;
  /** The game port's HTTP URL, where the demo page's dev tokens come from. */
  readonly gameHttpUrl?: string;
  /** What the server API (`/api/v1`, docs/server-api.md) drives; without it the API answers 404. */
  readonly api?: Omit<ServerApiDeps, "node" | "drain">;
  /** The server API may be used without a token (dev mode, admin port on loopback, no token set). */
  readonly apiWithoutToken?: boolean;
}

/** A node's running admin API: where it listens and how to stop it. */
export interface RunningAdmin {
  readonly url: string;
  close(): Promise<void>;
}

/** The URL of an HTTP server on `host:port` (an IPv6 address in brackets). */
export function httpUrlOf(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Starts the admin API on `adminHost:adminPort` (the token, when set, is required on every route). */
export async function startAdmin(
  config: NodeConfig,
  parts: AdminParts,
  logger: Logger,
): Promise<RunningAdmin> {
  const startedAt = Date.now();
  const { metrics, node } = parts;
  const status = (): NodeStatus => ({
    nodeId: config.nodeId,
    version: foyerVersion,
    mode: config.nats.length > 0 ? "fleet" : "embedded",
    url: parts.url,
    uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
    lobbies: metrics.lobbies,
    members: metrics.counts.members(),
    sessions: metrics.counts.sessions(),
    draining: node.draining(),
    drain: parts.drainProgress?.() ?? null,
  });
  const server = new AdminServer(
    {
      host: config.adminHost,
      port: config.adminPort,
      ...(config.adminToken === undefined ? {} : { token: config.adminToken }),
      apiWithoutToken: parts.apiWithoutToken === true,
    },
    {
      metrics,
      status,
      logger,
      ...(parts.drain ? { drain: parts.drain } : {}),
      ...(parts.api
        ? {
            api: new ServerApi({
              ...parts.api,
              node,
              ...(parts.drain ? { drain: parts.drain } : {}),
            }),
          }
        : {}),
      ...dashboardDeps(config, parts, status),
    },
  );
  const port = await server.listen();
  return { url: httpUrlOf(config.adminHost, port), close: () => server.close() };
}

/** The dashboard's routes: `/fleet` (in a fleet), `/cluster`, and the public pages. */
function dashboardDeps(config: NodeConfig, parts: AdminParts, status: () => NodeStatus) {
  const { fleet } = parts;
  const view = fleet ? () => fleetViewOf(fleet) : undefined;
  return {
    ...(view ? { fleet: view } : {}),
    cluster: () =>
      clusterViewOf({
        status,
        ...(view ? { fleet: view } : {}),
        fetchPeer: httpPeerFetch(config.adminToken),
        now: () => Date.now(),
      }),
    pages: dashboardPages({
      gameUrl: parts.url,
      ...(parts.gameHttpUrl === undefined ? {} : { gameHttpUrl: parts.gameHttpUrl }),
    }),
  };
}
