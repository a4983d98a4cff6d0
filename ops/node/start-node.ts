import type { Logger } from "pino";
import type { ActorSystem } from "../../actors/runtime/index.ts";
import type { Bus, DrainProgress, KvStore } from "../../fleet/index.ts";
import {
  SessionRegistry,
  type GatewayServer,
  type RequestRouter,
  type TokenKey,
} from "../../gateway/index.ts";
import { NodeMetrics } from "../admin/index.ts";
import type { NodeConfig } from "../config.ts";
import { startBlobSweep } from "./blob-sweep.ts";
import { tokenKeysOf } from "./dev-mode.ts";
import { refusedDrain, startFilters, startNodeAdmin } from "./node-admin.ts";
import { NodeCapacity } from "./node-capacity.ts";
import { buildGateway, requestRouterOf } from "./node-gateway.ts";
import { lobbyOptionsOf } from "./node-kinds.ts";
import type { NodeListings } from "./node-listings.ts";
import type { NodeRuntime } from "./node-runtime.ts";
import { startRuntime } from "./start-runtime.ts";
import { queueDepthsOf, runtimeEventsOf } from "./runtime-events.ts";

/** A running node: its URLs, its parts (for tests and the bench) and how to stop it. */
export interface RunningNode {
  readonly url: string;
  readonly httpUrl: string;
  readonly port: number;
  readonly system: ActorSystem;
  readonly sessions: SessionRegistry;
  /** The gateway's request handlers (the query bench drives them without sockets). */
  readonly requests: RequestRouter;
  /** The index of the fleet's public lobbies and the writer of this node's (docs/lobbies-query.md). */
  readonly listings: NodeListings;
  /** The token keys in use (dev mode makes one up). */
  readonly tokenKeys: readonly TokenKey[];
  /** Refused frames by error code, and sockets closed by the node by `close:<reason>`. */
  readonly refusals: ReadonlyMap<string, number>;
  /** The admin API's URL: `/metrics`, `/status`, `/drain`, the server API under `/api/v1`. */
  readonly adminUrl: string;
  /**
   * Where the studio's events are published (docs/server-api.md): the node's NATS connection in a fleet,
   * an in-process bus on an embedded node (subscribe here to hear them in the same process).
   */
  readonly eventBus: Bus;
  readonly metrics: NodeMetrics;
  /** Starts draining this node into its peers (fleet only; refused on an embedded node). */
  drain(): { accepted: boolean; message: string };
  /** Resolves when a started drain ends (fleet only). */
  readonly drained?: Promise<DrainProgress>;
  stop(): Promise<void>;
}

/** What a caller may put around a node's parts; production passes none. */
export interface NodeHooks {
  /**
   * Wraps the node's KV store, the fleet's (`--nats`) or the embedded in-memory one: the cluster bench
   * counts the writes of each op, and makes an embedded node's writes each wait one NATS round trip.
   */
  readonly kvView?: (kv: KvStore) => KvStore;
}

/**
 * The parts made after those that report to them: the metrics read the runtime's owned keys and queues,
 * and a fenced fleet node closes the gateway's sockets.
 */
class LaterParts {
  runtime: NodeRuntime | undefined;
  gateway: GatewayServer | undefined;
}

/** The node's counters and what they read. */
function metricsOf(config: NodeConfig, sessions: SessionRegistry, later: LaterParts): NodeMetrics {
  const lobbyTypes = config.lobbyTypes.lobbyTypes.map((t) => t.id);
  return new NodeMetrics({
    sessions: () => sessions.size,
    members: () => sessions.inLobby,
    // In a fleet the lobbies a node owns are those it holds claims on (they move by drain and failover).
    owned: () => later.runtime?.fleet?.owned(),
    queueDepths: () => queueDepthsOf(lobbyTypes, (key) => later.runtime?.system.peek(key)),
  });
}

/** The parts of a node made before its runtime: its sessions, capacity, counters and token keys. */
function nodePartsOf(config: NodeConfig, logger: Logger) {
  const log = logger.child({ component: "node", node: config.nodeId });
  const capacity = new NodeCapacity(config.maxRooms, config.nodeId, config.maxLobbies);
  const sessions = new SessionRegistry();
  const later = new LaterParts();
  const metrics = metricsOf(config, sessions, later);
  const runtimeLog = logger.child({ component: "runtime", node: config.nodeId });
  return {
    log,
    tokenKeys: tokenKeysOf(config, log),
    capacity,
    sessions,
    refusals: new Map<string, number>(),
    later,
    metrics,
    events: runtimeEventsOf(runtimeLog, capacity, metrics),
  };
}

/** Where a node listening on `port` is reached: its WebSocket URL and its HTTP URL. */
function urlsOf(config: NodeConfig, port: number): { url: string; httpUrl: string } {
  const secure = Boolean(config.tlsCert && config.tlsKey);
  return {
    url: config.publicUrl ?? `${secure ? "wss" : "ws"}://${config.host}:${port}/ws`,
    httpUrl: `${secure ? "https" : "http"}://${config.host}:${port}`,
  };
}

/** Starts the node's periodic sweeps: expired sessions, orphaned blobs. Returns their stop. */
function startSweeps(sessions: SessionRegistry, runtime: NodeRuntime, log: Logger): () => void {
  const sweep = setInterval(() => sessions.expire(Date.now(), 10 * 60_000), 60_000);
  sweep.unref();
  const { system } = runtime;
  const stopBlobSweep = startBlobSweep(runtime.blobs, (key, message) => system.ask(key, message), log);
  return () => {
    clearInterval(sweep);
    stopBlobSweep();
  };
}

/**
 * Starts one node: the actor runtime (embedded on an in-memory KV, or a fleet node over NATS: the same
 * claim and snapshot code path), the WebSocket gateway in front of it and the admin API.
 */
export async function startNode(
  config: NodeConfig,
  logger: Logger,
  hooks: NodeHooks = {},
): Promise<RunningNode> {
  const parts = nodePartsOf(config, logger);
  const { log, capacity, sessions, later, metrics } = parts;
  const runtime = await startRuntime(
    config,
    { outbox: sessions, capacity, events: parts.events, log, metrics },
    () => later.gateway,
    hooks.kvView,
  );
  later.runtime = runtime;
  const { system, fleet } = runtime;
  const filters = startFilters(config, system, logger);
  const lobby = lobbyOptionsOf(config);
  const listings = runtime.listings;
  const gatewayParts = { ...parts, system, blobs: runtime.blobs, lobby, fleet, listings };
  const requests = requestRouterOf(config, gatewayParts);
  const gateway = buildGateway(config, logger, gatewayParts, requests);
  later.gateway = gateway;
  const port = await gateway.listen();
  const { url, httpUrl } = urlsOf(config, port);
  sessions.publicUrl = url;
  capacity.url = url;
  const admin = await startNodeAdmin(config, logger, {
    system,
    fleet,
    capacity,
    metrics,
    lobby,
    listings,
    url,
    httpUrl,
  }).catch(async (error: unknown) => {
    // The admin port was taken or refused: a node nobody can observe or drain does not start.
    await gateway.close();
    await runtime.close();
    throw error;
  });
  await fleet?.announce(url, admin.url);
  const stopSweeps = startSweeps(sessions, runtime, log);
  log.info({ url, admin: admin.url, mode: config.production ? "production" : "dev" }, "node listening");
  return {
    url,
    httpUrl,
    port,
    system,
    sessions,
    requests,
    listings,
    tokenKeys: parts.tokenKeys,
    refusals: parts.refusals,
    metrics,
    adminUrl: admin.url,
    eventBus: runtime.bus,
    drain: () => fleet?.drain() ?? refusedDrain,
    ...(fleet ? { drained: fleet.drained } : {}),
    async stop() {
      capacity.stopping = true;
      stopSweeps();
      await admin.close();
      await gateway.close();
      await runtime.close();
      await filters?.close();
    },
  };
}
