import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import type { LobbyOptions } from "../../actors/lobby/index.ts";
import type { ActorSystem, BlobStore } from "../../actors/runtime/index.ts";
import { cryptoRandom, type FleetNode } from "../../fleet/index.ts";
import {
  BlobRequests,
  GatewayServer,
  RequestRouter,
  PROTOCOL_VERSION,
  type GatewayOptions,
  type LobbyListings,
  type SessionRegistry,
  type TokenKey,
  playerTokenVerifierOf,
} from "../../gateway/index.ts";
import type { NodeMetrics } from "../admin/index.ts";
import type { NodeConfig } from "../config.ts";
import { isDevMode } from "./dev-mode.ts";
import type { NodeCapacity } from "./node-capacity.ts";

/** How the gateway listens, from the configuration. */
function gatewayOptionsOf(config: NodeConfig): GatewayOptions {
  return {
    host: config.host,
    port: config.port,
    allowedOrigins: config.allowedOrigins,
    maxConnectionsPerIp: config.maxConnectionsPerIp,
    dev: isDevMode(config),
    heartbeatMs: config.heartbeatMs,
    ...(config.tlsCert && config.tlsKey
      ? { tls: { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) } }
      : {}),
  };
}

/** What the gateway fronts: the runtime, the node's sessions and counters, and its fleet node if any. */
export interface GatewayParts {
  readonly system: ActorSystem;
  readonly lobby: LobbyOptions;
  readonly sessions: SessionRegistry;
  readonly tokenKeys: readonly TokenKey[];
  readonly refusals: Map<string, number>;
  readonly capacity: NodeCapacity;
  readonly metrics: NodeMetrics;
  readonly blobs: BlobStore;
  /** In a fleet: redirects, placement and regions are the fleet node's. */
  readonly fleet?: FleetNode | undefined;
  /** The index of the fleet's public lobbies that queries read. */
  readonly listings: LobbyListings;
}

/** The lobby requests of the gateway: a fleet node decides where keys are and where new ones go. */
export function requestRouterOf(config: NodeConfig, parts: GatewayParts): RequestRouter {
  const { system, fleet } = parts;
  return new RequestRouter({
    system,
    lobby: parts.lobby,
    random: cryptoRandom(),
    canOpenRoom: () => parts.capacity.state.canOpenRoom(),
    onRedirect: (reason) => {
      parts.metrics.redirected(reason);
    },
    ...(fleet
      ? {
          locateOwner: (key: string) => fleet.locateOwner(key),
          ownerChanged: (key: string, maxMs: number) => fleet.ownerChanged(key, maxMs),
          placeNew: () => fleet.placeNew(),
        }
      : { placeNew: () => parts.capacity.placeNewLobby() }),
    listings: parts.listings,
    lobbyTypes: config.lobbyTypes.lobbyTypes.map((t) => t.id),
    activities: config.activities.activities.map((a) => a.id),
    blobs: new BlobRequests({
      system,
      store: parts.blobs,
      uploadTimeoutMs: config.blobUploadTimeoutMs,
      // A download frame stays well inside the unsent-bytes bound, and no larger than an upload's.
      downloadChunkBytes: Math.max(1024, Math.min(config.maxFrameBytes, config.maxBufferedBytes / 4)),
      maxBufferedBytes: config.maxBufferedBytes,
    }),
  });
}

/** The WebSocket gateway in front of the runtime. */
export function buildGateway(
  config: NodeConfig,
  logger: Logger,
  parts: GatewayParts,
  requests: RequestRouter = requestRouterOf(config, parts),
): GatewayServer {
  const { system, sessions, tokenKeys, refusals, capacity, metrics, fleet } = parts;
  return new GatewayServer(gatewayOptionsOf(config), {
    nodeId: config.nodeId,
    region: config.region,
    ...(fleet ? { regions: () => fleet.regions() } : {}),
    system,
    requests,
    sessions,
    tokenKeys,
    tokenVerifier: playerTokenVerifierOf(config, tokenKeys, logger.child({ component: "auth" })),
    sessionSecret: config.sessionSecret || randomBytes(32).toString("base64url"),
    protocol: PROTOCOL_VERSION + config.protocolBump,
    limits: {
      maxFrameBytes: config.maxFrameBytes,
      maxBufferedBytes: config.maxBufferedBytes,
      ratePerSecond: config.ratePerSecond,
      rateBurst: config.rateBurst,
      helloTimeoutMs: config.helloTimeoutMs,
    },
    logger: logger.child({ component: "gateway", node: config.nodeId }),
    now: () => Date.now(),
    stopping: () => capacity.stopping,
    onRefused: (code) => {
      refusals.set(code, (refusals.get(code) ?? 0) + 1);
      metrics.refused(code);
    },
    onAnswered: (op, outcome, seconds) => {
      metrics.answered(op, outcome, seconds);
    },
  });
}
