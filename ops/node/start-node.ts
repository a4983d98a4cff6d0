import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { startBlobSweep } from "./blob-sweep.ts";
import { activityDirectoryKind, activityLobbyKind } from "../../actors/activity/index.ts";
import { directoryKind } from "../../actors/directory/index.ts";
import {
  matchedLobbyKind,
  queueKey,
  queueKind,
  waitingPlayers,
  type QueueState,
} from "../../actors/matchmaking/index.ts";
import { defaultLobbyOptions, lobbyKind, type LobbyOptions } from "../../actors/lobby/index.ts";
import { playerKind } from "../../actors/player/index.ts";
import { roomKind } from "../../actors/room/index.ts";
import {
  ActorSystem,
  type BlobStore,
  type EventPublisher,
  type NodeState,
  type OwnerLocation,
  type Outbox,
  type RuntimeEvents,
} from "../../actors/runtime/index.ts";
import {
  KvActorStore,
  MemoryBusServer,
  MemoryKvServer,
  busEventPublisher,
  type Bus,
  cryptoRandom,
  realScheduler,
  type DrainProgress,
  type KvStore,
  MemoryBlobStore,
} from "../../fleet/index.ts";
import {
  PROTOCOL_VERSION,
  GatewayServer,
  LobbyRequests,
  SessionRegistry,
  inKeyHere,
  CloseCodes,
  type GatewayOptions,
  type TokenKey,
  BlobRequests,
  playerTokenVerifierOf,
} from "../../gateway/index.ts";
import { NodeMetrics, startAdmin, type FleetSource } from "../admin/index.ts";
import { resultSessionsOf, type NodeConfig } from "../config.ts";
import { FilterPool, filterEndpoint } from "../filters/index.ts";
import { buildFleetRuntime, type FleetRuntime, type RegionUrl } from "./fleet-runtime.ts";
import { isDevMode, isLoopbackHost, tokenKeysOf } from "./dev-mode.ts";

/** A running node: its URLs, its parts (for tests and the bench) and how to stop it. */
export interface RunningNode {
  readonly url: string;
  readonly httpUrl: string;
  readonly port: number;
  readonly system: ActorSystem;
  readonly sessions: SessionRegistry;
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

/** An embedded node has no peers to move its lobbies to. */
const refusedDrain = {
  accepted: false,
  message: "an embedded node has no peers to move its lobbies to: stop it instead (its lobbies end with it)",
};

/** What a caller may put around a node's parts; production passes none. */
export interface NodeHooks {
  /**
   * Wraps the node's KV store, the fleet's (`--nats`) or the embedded in-memory one: the cluster bench
   * counts the writes of each op, and makes an embedded node's writes each wait one NATS round trip.
   */
  readonly kvView?: (kv: KvStore) => KvStore;
}

/** The lobby options a configuration gives. */
export function lobbyOptionsOf(config: NodeConfig): LobbyOptions {
  return {
    ...defaultLobbyOptions,
    codeLength: config.codeLength,
    codeAlphabet: config.codeAlphabet,
    maxMembers: config.maxMembers,
    teamSizes: config.teamSizes,
    lobbyGraceSeconds: config.lobbyGraceSeconds,
    failoverGraceSeconds: config.failoverGraceSeconds,
    reconnectGraceSeconds: config.reconnectGraceSeconds,
    returnAfterEndSeconds: config.returnAfterEndSeconds,
    botSeatIdBase: config.botSeatIdBase,
  };
}

/**
 * The actor runtime of an embedded node: every kind registered, on an in-memory KV through the same
 * claim and snapshot store the fleet uses on NATS. The bench uses it without sockets. `kvView` wraps the
 * in-memory KV (NodeHooks).
 */
export async function buildEmbeddedRuntime(
  config: NodeConfig,
  outbox: Outbox,
  node: NodeState,
  events: RuntimeEvents,
  blobs?: BlobStore,
  publisher?: EventPublisher,
  kvView: (kv: KvStore) => KvStore = (kv) => kv,
): Promise<{ system: ActorSystem; kv: KvStore; lobby: LobbyOptions }> {
  const kv = kvView(new MemoryKvServer().connect());
  const scheduler = realScheduler();
  const store = new KvActorStore({
    claims: await kv.bucket("claims"),
    snapshots: await kv.bucket("lobbies"),
    identity: { node: config.nodeId, incarnation: randomBytes(8).toString("hex") },
    scheduler,
  });
  const system = new ActorSystem({
    store,
    outbox,
    scheduler,
    random: cryptoRandom(),
    node,
    events,
    resultSessions: resultSessionsOf(config),
    ...(blobs ? { blobs } : {}),
    ...(publisher ? { publisher } : {}),
  });
  registerKinds(system, config);
  return { system, kv, lobby: lobbyOptionsOf(config) };
}

/** Every actor kind a node serves, the same on an embedded node and in a fleet. */
export function registerKinds(system: ActorSystem, config: NodeConfig): void {
  system
    .register(lobbyKind(lobbyOptionsOf(config)))
    .register(roomKind({}))
    .register(playerKind({}), { createOnDemand: true })
    .register(directoryKind({}), { createOnDemand: true })
    // Activity lobbies (docs/activity.md): a directory per configured activity, made on its first join;
    // the lobbies are spawned by their directory.
    .register(activityDirectoryKind(config.activities), { createOnDemand: true })
    // Grace, transfer window and room codes come from the activities file (its `lobby` block).
    .register(activityLobbyKind(config.activities.lobby))
    // Rating matchmaking (docs/matchmaking.md): a queue per configured lobby type, made on its first
    // request; the matched lobbies are spawned by their queue.
    // A search without pingData, and a new lobby's region then, is the node's region (SPEC §3 ping).
    .register(queueKind(config.lobbyTypes, config.region ? { defaultRegion: config.region } : {}), {
      createOnDemand: true,
    })
    .register(matchedLobbyKind());
}

/** What a node knows about itself: how many rooms it runs, whether it is stopping, and its URL. */
class Capacity {
  rooms = 0;
  stopping = false;
  /** The URL players reach this node at, once it listens. */
  url = "";
  constructor(
    private readonly maxRooms: number,
    private readonly nodeId: string,
  ) {}

  /**
   * The runtime's view of this node (a single node never drains and always holds its lease). It is its
   * own least-loaded node: a queue's accepted match opens its room here while it has room.
   */
  readonly state: NodeState = {
    canOpenRoom: () => this.rooms < this.maxRooms && !this.stopping,
    draining: () => false,
    mayAct: () => true,
    roomHost: () =>
      this.state.canOpenRoom() && this.url !== "" ? { node: this.nodeId, url: this.url } : undefined,
  };
}

/**
 * Players waiting in each lobby type's queue, read from the queue actors live on this node (a queue's
 * state is its kind's, `QueueState`); 0 for a type whose queue is not live here.
 */
function queueDepthsOf(lobbyTypes: readonly string[], peek: (key: string) => unknown): Map<string, number> {
  const depths = new Map<string, number>();
  for (const lobbyType of lobbyTypes) {
    const state = peek(queueKey(lobbyType)) as QueueState | undefined;
    depths.set(lobbyType, state === undefined ? 0 : waitingPlayers(state));
  }
  return depths;
}

/**
 * The runtime's events as log lines and metrics, and the room count that decides whether a start may open
 * a room.
 */
function runtimeEventsOf(log: Logger, capacity: Capacity, metrics: NodeMetrics): RuntimeEvents {
  const counted = metrics.runtimeEvents;
  return {
    handlerFailed: (key, err) => {
      log.error({ key, err }, "handler failed; last good state kept");
    },
    persistFailed: (key, err) => {
      log.warn({ key, err }, "snapshot write failed");
    },
    deadLetter: (key) => {
      log.debug({ key }, "message to a key with no actor");
    },
    created: (key) => {
      if (key.startsWith("room/")) capacity.rooms++;
      counted.created(key);
    },
    stopped: (key) => {
      if (key.startsWith("room/")) capacity.rooms--;
      counted.stopped(key);
    },
    persisted: counted.persisted,
    publishFailed: (key, err) => {
      log.warn({ key, err }, "event not published");
    },
  };
}

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

interface GatewayParts {
  readonly system: ActorSystem;
  readonly lobby: LobbyOptions;
  readonly sessions: SessionRegistry;
  readonly tokenKeys: readonly TokenKey[];
  readonly refusals: Map<string, number>;
  readonly capacity: Capacity;
  readonly locateOwner?: (key: string) => Promise<OwnerLocation>;
  readonly ownerChanged?: (key: string, maxMs: number) => Promise<void>;
  readonly placeNew?: () => OwnerLocation;
  readonly regions?: () => readonly RegionUrl[];
  readonly metrics: NodeMetrics;
  readonly blobs: BlobStore;
}

/** The WebSocket gateway in front of the runtime. */
function buildGateway(config: NodeConfig, logger: Logger, parts: GatewayParts): GatewayServer {
  const { system, lobby, sessions, tokenKeys, refusals, capacity, metrics } = parts;
  return new GatewayServer(gatewayOptionsOf(config), {
    nodeId: config.nodeId,
    region: config.region,
    ...(parts.regions ? { regions: parts.regions } : {}),
    system,
    requests: new LobbyRequests({
      system,
      lobby,
      random: cryptoRandom(),
      canOpenRoom: () => capacity.state.canOpenRoom(),
      onRedirect: (reason) => {
        metrics.redirected(reason);
      },
      ...(parts.locateOwner ? { locateOwner: parts.locateOwner } : {}),
      ...(parts.ownerChanged ? { ownerChanged: parts.ownerChanged } : {}),
      ...(parts.placeNew ? { placeNew: parts.placeNew } : {}),
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
    }),
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

/** A node's runtime, embedded or in a fleet (the fleet adds redirects, placement and drain). */
type BuiltRuntime = { system: ActorSystem; blobs: BlobStore; bus: Bus; close(): Promise<void> } & Partial<
  Pick<
    FleetRuntime,
    | "node"
    | "locateOwner"
    | "ownerChanged"
    | "announce"
    | "placeNew"
    | "regions"
    | "drain"
    | "drainProgress"
    | "drained"
    | "owned"
    | "membership"
    | "ownedKeys"
    | "failovers"
  >
>;

/** The runtime a configuration asks for: embedded (no NATS) or in a fleet (`--nats`). */
async function buildRuntime(
  config: NodeConfig,
  parts: {
    outbox: SessionRegistry;
    capacity: Capacity;
    events: RuntimeEvents;
    log: Logger;
    metrics: NodeMetrics;
  },
  gateway: () => GatewayServer | undefined,
  hooks: NodeHooks,
): Promise<BuiltRuntime> {
  if (config.nats.length > 0) {
    return buildFleetRuntime(config, {
      outbox: parts.outbox,
      capacity: parts.capacity.state,
      events: parts.events,
      register: (system) => {
        registerKinds(system, config);
      },
      playersHere: (key) => parts.outbox.connectedFor(key),
      connectedHere: (player) => parts.outbox.ofPlayer(player)?.socket != null,
      inKeyHere: (player, key) => inKeyHere(parts.outbox.ofPlayer(player), key),
      reset: () => gateway()?.closeSockets(CloseCodes.RESET.code, "RESET"),
      moved: (key, url) => {
        parts.outbox.moveAway(key, url);
      },
      fleetEvents: {
        tookOver: (key, sinceDeathMs) => {
          // Wall-clock differences: a clock step could make one negative.
          parts.metrics.tookOver(
            key,
            sinceDeathMs === undefined ? undefined : Math.max(0, sinceDeathMs) / 1000,
          );
        },
        migrated: (direction, result) => {
          parts.metrics.migrated(direction, result);
        },
        frozeFor: (key, ms) => {
          parts.metrics.migrationPaused(key, Math.max(0, ms) / 1000);
        },
      },
      draining: () => {
        void parts.outbox.notifyDraining();
      },
      log: parts.log,
      ...(hooks.kvView ? { kvView: hooks.kvView } : {}),
    });
  }
  const blobs = new MemoryBlobStore(config.maxBlobBytes);
  // Embedded mode's events stay in the process: whoever holds the node subscribes to its event bus.
  // A subscriber that throws is its own bug: logged, and the node and the other subscribers go on.
  const bus = new MemoryBusServer().connect({
    onHandlerError: (err) => {
      parts.log.error({ err }, "an event subscriber threw");
    },
  });
  const publisher = busEventPublisher(bus, config.nodeId, (event, error) => {
    parts.events.publishFailed?.(event.key, error);
  });
  const { system, kv } = await buildEmbeddedRuntime(
    config,
    parts.outbox,
    parts.capacity.state,
    parts.events,
    blobs,
    publisher,
    hooks.kvView,
  );
  return {
    system,
    blobs,
    bus,
    async close() {
      system.close();
      await kv.close();
      await blobs.close();
      await bus.close();
    },
  };
}

/**
 * Starts one embedded node: the actor runtime on an in-memory KV (the same claim and snapshot code path
 * the fleet runs on NATS), and the WebSocket gateway in front of it.
 */
export async function startNode(
  config: NodeConfig,
  logger: Logger,
  hooks: NodeHooks = {},
): Promise<RunningNode> {
  const log = logger.child({ component: "node", node: config.nodeId });
  const tokenKeys = tokenKeysOf(config, log);
  const capacity = new Capacity(config.maxRooms, config.nodeId);
  const sessions = new SessionRegistry();
  const refusals = new Map<string, number>();
  // In a fleet the lobbies a node owns are those it holds claims on (they move by drain and failover).
  const owned: { count?: () => Map<string, number> } = {};
  // The runtime is built after the metrics it reports to.
  const built: { system?: ActorSystem } = {};
  const lobbyTypes = config.lobbyTypes.lobbyTypes.map((t) => t.id);
  const metrics = new NodeMetrics({
    sessions: () => sessions.size,
    members: () => sessions.inLobby,
    owned: () => owned.count?.(),
    queueDepths: () => queueDepthsOf(lobbyTypes, (key) => built.system?.peek(key)),
  });
  const runtimeLog = logger.child({ component: "runtime", node: config.nodeId });
  const events = runtimeEventsOf(runtimeLog, capacity, metrics);
  // A fenced fleet node closes the gateway's sockets; the gateway is made after the runtime it fronts.
  const front: { gateway?: GatewayServer } = {};
  const runtime = await buildRuntime(
    config,
    { outbox: sessions, capacity, events, log, metrics },
    () => front.gateway,
    hooks,
  );
  const { system } = runtime;
  built.system = system;
  if (runtime.owned) owned.count = runtime.owned;
  const filters = startFilters(config, system, logger);
  const lobby = lobbyOptionsOf(config);
  const gateway = buildGateway(config, logger, {
    system,
    blobs: runtime.blobs,
    lobby,
    sessions,
    tokenKeys,
    refusals,
    capacity,
    metrics,
    ...(runtime.locateOwner ? { locateOwner: runtime.locateOwner } : {}),
    ...(runtime.ownerChanged ? { ownerChanged: runtime.ownerChanged } : {}),
    ...(runtime.placeNew ? { placeNew: runtime.placeNew } : {}),
    ...(runtime.regions ? { regions: runtime.regions } : {}),
  });
  front.gateway = gateway;
  const port = await gateway.listen();
  const secure = Boolean(config.tlsCert && config.tlsKey);
  const url = config.publicUrl ?? `${secure ? "wss" : "ws"}://${config.host}:${port}/ws`;
  sessions.publicUrl = url;
  capacity.url = url;
  const httpUrl = `${secure ? "https" : "http"}://${config.host}:${port}`;
  const admin = await startAdmin(
    config,
    {
      metrics,
      node: runtime.node ?? capacity.state,
      url,
      drain: () => Promise.resolve(runtime.drain?.() ?? refusedDrain),
      ...(runtime.drainProgress ? { drainProgress: runtime.drainProgress } : {}),
      ...fleetSourceOf(config, runtime),
      gameHttpUrl: httpUrl,
      api: { system, lobby, random: cryptoRandom() },
      // docs/server-api.md "Authentication": no token is needed only on a dev node's loopback admin port.
      apiWithoutToken: isDevMode(config) && isLoopbackHost(config.adminHost),
    },
    logger.child({ component: "admin", node: config.nodeId }),
  ).catch(async (error: unknown) => {
    // The admin port was taken or refused: a node nobody can observe or drain does not start.
    await gateway.close();
    await runtime.close();
    throw error;
  });
  await runtime.announce?.(url, admin.url);
  const sweep = setInterval(() => sessions.expire(Date.now(), 10 * 60_000), 60_000);
  sweep.unref();
  const stopBlobSweep = startBlobSweep(runtime.blobs, (key, message) => system.ask(key, message), log);
  log.info({ url, admin: admin.url, mode: config.production ? "production" : "dev" }, "node listening");
  return {
    url,
    httpUrl,
    port,
    system,
    sessions,
    tokenKeys,
    refusals,
    adminUrl: admin.url,
    eventBus: runtime.bus,
    metrics,
    drain: () => runtime.drain?.() ?? refusedDrain,
    ...(runtime.drained ? { drained: runtime.drained } : {}),
    async stop() {
      capacity.stopping = true;
      clearInterval(sweep);
      stopBlobSweep();
      await admin.close();
      await gateway.close();
      await runtime.close();
      await filters?.close();
    },
  };
}

/** The matchmaking filter pool, serving `filters/<name>`, when the configuration names a filters module. */
function startFilters(config: NodeConfig, system: ActorSystem, logger: Logger): FilterPool | undefined {
  if (config.filtersModule === undefined) return undefined;
  const log = logger.child({ component: "filters", node: config.nodeId });
  const pool = new FilterPool({ module: config.filtersModule, log });
  system.mount("filters", filterEndpoint(pool, system, log));
  return pool;
}

/** What the admin API's fleet view reads, on a node in a fleet. */
function fleetSourceOf(config: NodeConfig, runtime: BuiltRuntime): { fleet?: FleetSource } {
  const { membership, ownedKeys, failovers, system } = runtime;
  if (!membership || !ownedKeys || !failovers) return {};
  return {
    fleet: {
      node: config.nodeId,
      load: () => system.liveCount,
      peerViews: () => membership.peerViews(),
      ownedKeys,
      peek: (key) => system.peek(key),
      failovers,
    },
  };
}
