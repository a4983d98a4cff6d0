import { randomBytes } from "node:crypto";
import type { LobbyOptions } from "../../actors/lobby/index.ts";
import {
  ActorSystem,
  type BlobStore,
  type EventPublisher,
  type NodeState,
  type Outbox,
  type RuntimeEvents,
} from "../../actors/runtime/index.ts";
import {
  KvActorStore,
  MemoryBlobStore,
  MemoryBusServer,
  MemoryKvServer,
  busEventPublisher,
  cryptoRandom,
  realScheduler,
  type KvStore,
} from "../../fleet/index.ts";
import type { Logger } from "pino";
import { resultSessionsOf, type NodeConfig } from "../config.ts";
import { lobbyOptionsOf, registerKinds } from "./node-kinds.ts";
import type { NodeRuntime } from "./node-runtime.ts";
import { openListings, type NodeListings } from "./node-listings.ts";

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
): Promise<{ system: ActorSystem; kv: KvStore; lobby: LobbyOptions; listings: NodeListings }> {
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
  const listings = await openListings(kv, { node: config.nodeId, indexed: config.lobbyIndex, scheduler });
  listings.attach(system);
  return { system, kv, lobby: lobbyOptionsOf(config), listings };
}

/**
 * An embedded node's runtime with its in-memory blob store and event bus. Embedded mode's events stay
 * in the process: whoever holds the node subscribes to its event bus.
 */
export async function startEmbeddedRuntime(
  config: NodeConfig,
  parts: { outbox: Outbox; node: NodeState; events: RuntimeEvents; log: Logger },
  kvView?: (kv: KvStore) => KvStore,
): Promise<NodeRuntime> {
  const blobs = new MemoryBlobStore(config.maxBlobBytes);
  // A subscriber that throws is its own bug: logged, and the node and the other subscribers go on.
  const bus = new MemoryBusServer().connect({
    onHandlerError: (err) => {
      parts.log.error({ err }, "an event subscriber threw");
    },
  });
  const publisher = busEventPublisher(bus, config.nodeId, (event, error) => {
    parts.events.publishFailed?.(event.key, error);
  });
  const { system, kv, listings } = await buildEmbeddedRuntime(
    config,
    parts.outbox,
    parts.node,
    parts.events,
    blobs,
    publisher,
    kvView,
  );
  return {
    system,
    blobs,
    bus,
    listings,
    async close() {
      listings.close();
      system.close();
      await kv.close();
      await blobs.close();
      await bus.close();
    },
  };
}
