import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { Logger } from "pino";
import { directoryKind } from "../../actors/directory/index.ts";
import { defaultLobbyOptions, lobbyKind, type LobbyOptions } from "../../actors/lobby/index.ts";
import { playerKind } from "../../actors/player/index.ts";
import { roomKind } from "../../actors/room/index.ts";
import { ActorSystem, type NodeState, type Outbox, type RuntimeEvents } from "../../actors/runtime/index.ts";
import {
  KvActorStore,
  MemoryKvServer,
  cryptoRandom,
  realScheduler,
  type KvStore,
} from "../../fleet/index.ts";
import type { TokenKey } from "../../gateway/auth/player-token.ts";
import { GatewayServer } from "../../gateway/gateway-server.ts";
import { LobbyRequests } from "../../gateway/lobby-requests.ts";
import { SessionRegistry } from "../../gateway/session-registry.ts";
import type { NodeConfig } from "../config.ts";

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
  stop(): Promise<void>;
}

/** The lobby options a configuration gives. */
export function lobbyOptionsOf(config: NodeConfig): LobbyOptions {
  return {
    ...defaultLobbyOptions,
    codeLength: config.codeLength,
    maxMembers: config.maxMembers,
    teamSizes: config.teamSizes,
    lobbyGraceSeconds: config.lobbyGraceSeconds,
    reconnectGraceSeconds: config.reconnectGraceSeconds,
    returnAfterEndSeconds: config.returnAfterEndSeconds,
    botSeatIdBase: config.botSeatIdBase,
  };
}

/**
 * The actor runtime of an embedded node: every kind registered, on an in-memory KV through the same
 * claim and snapshot store the fleet uses on NATS. The bench uses it without sockets.
 */
export async function buildEmbeddedRuntime(
  config: NodeConfig,
  outbox: Outbox,
  node: NodeState,
  events: RuntimeEvents,
): Promise<{ system: ActorSystem; kv: KvStore; lobby: LobbyOptions }> {
  const kv = new MemoryKvServer().connect();
  const scheduler = realScheduler();
  const store = new KvActorStore({
    claims: await kv.bucket("claims"),
    snapshots: await kv.bucket("lobbies"),
    identity: { node: config.nodeId, incarnation: randomBytes(8).toString("hex") },
    scheduler,
  });
  const system = new ActorSystem({ store, outbox, scheduler, random: cryptoRandom(), node, events });
  const lobby = lobbyOptionsOf(config);
  system
    .register(lobbyKind(lobby))
    .register(roomKind({}))
    .register(playerKind({}), { createOnDemand: true })
    .register(directoryKind({}), { createOnDemand: true });
  return { system, kv, lobby };
}

/**
 * Starts one embedded node: the actor runtime on an in-memory KV (the same claim and snapshot code path
 * the fleet runs on NATS), and the WebSocket gateway in front of it.
 */
export async function startNode(config: NodeConfig, logger: Logger): Promise<RunningNode> {
  const log = logger.child({ component: "node", node: config.nodeId });
  const tokenKeys = tokenKeysOf(config, log);
  const sessionSecret = config.sessionSecret || randomBytes(32).toString("base64url");
  let rooms = 0;
  let stopping = false;
  const nodeState: NodeState = {
    canOpenRoom: () => rooms < config.maxRooms && !stopping,
    draining: () => false,
    mayAct: () => true,
  };
  const sessions = new SessionRegistry();
  const refusals = new Map<string, number>();
  const runtimeLog = logger.child({ component: "runtime", node: config.nodeId });
  const random = cryptoRandom();
  const { system, kv, lobby } = await buildEmbeddedRuntime(config, sessions, nodeState, {
    handlerFailed: (key, err) => {
      runtimeLog.error({ key, err }, "handler failed; last good state kept");
    },
    persistFailed: (key, err) => {
      runtimeLog.warn({ key, err }, "snapshot write failed");
    },
    deadLetter: (key) => {
      runtimeLog.debug({ key }, "message to a key with no actor");
    },
    created: (key) => {
      if (key.startsWith("room/")) rooms++;
    },
    stopped: (key) => {
      if (key.startsWith("room/")) rooms--;
    },
  });
  const requests = new LobbyRequests({ system, lobby, random });
  const gateway = new GatewayServer(
    {
      host: config.host,
      port: config.port,
      allowedOrigins: config.allowedOrigins,
      maxConnectionsPerIp: config.maxConnectionsPerIp,
      dev: !config.production && config.tokenKeys.length === 0,
      ...(config.tlsCert && config.tlsKey
        ? { tls: { cert: readFileSync(config.tlsCert), key: readFileSync(config.tlsKey) } }
        : {}),
    },
    {
      nodeId: config.nodeId,
      system,
      requests,
      sessions,
      tokenKeys,
      sessionSecret,
      limits: {
        maxFrameBytes: config.maxFrameBytes,
        maxBufferedBytes: config.maxBufferedBytes,
        ratePerSecond: config.ratePerSecond,
        rateBurst: config.rateBurst,
        helloTimeoutMs: config.helloTimeoutMs,
      },
      logger: logger.child({ component: "gateway", node: config.nodeId }),
      now: () => Date.now(),
      stopping: () => stopping,
      onRefused: (code) => refusals.set(code, (refusals.get(code) ?? 0) + 1),
    },
  );
  const port = await gateway.listen();
  const scheme = config.tlsCert ? "wss" : "ws";
  const url = config.publicUrl ?? `${scheme}://${config.host}:${port}/ws`;
  const httpUrl = `${config.tlsCert ? "https" : "http"}://${config.host}:${port}`;
  const sweep = setInterval(() => sessions.expire(Date.now(), 10 * 60_000), 60_000);
  sweep.unref();
  log.info({ url, mode: config.production ? "production" : "dev" }, "node listening");
  return {
    url,
    httpUrl,
    port,
    system,
    sessions,
    tokenKeys,
    refusals,
    async stop() {
      stopping = true;
      clearInterval(sweep);
      await gateway.close();
      system.close();
      await kv.close();
    },
  };
}

function tokenKeysOf(config: NodeConfig, log: Logger): TokenKey[] {
  const keys = config.tokenKeys.map((pair) => {
    const at = pair.indexOf(":");
    return { id: pair.slice(0, at), secret: pair.slice(at + 1) };
  });
  if (keys.length > 0) return keys;
  log.warn(
    "DEV MODE: no --token-keys given, so this node made up a key and issues player tokens to anyone at GET /dev/token. " +
      "Never expose it; production nodes (--production) refuse to start without keys.",
  );
  return [{ id: "dev", secret: randomBytes(32).toString("base64url") }];
}
