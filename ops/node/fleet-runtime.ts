import { randomBytes } from "node:crypto";
import { pack, unpack } from "msgpackr";
import { z } from "zod";
import { ActorSystem, type NodeState, type Outbox, type RuntimeEvents } from "../../actors/runtime/index.ts";
import {
  FleetRouter,
  KvActorStore,
  NatsBus,
  NatsKvStore,
  NodeEndpoint,
  connectNats,
  cryptoRandom,
  realScheduler,
  type KvBucket,
  type KvStore,
} from "../../fleet/index.ts";
import type { NodeConfig } from "../config.ts";

/** What the `nodes` bucket says about a node (heartbeats and leases come with the failover issue). */
const nodeRecordSchema = z.object({ url: z.string() });

/** A runtime in a fleet: claims and snapshots in NATS KV, messages for other nodes' keys over NATS. */
export interface FleetRuntime {
  readonly system: ActorSystem;
  /** The public URL of the node that owns `key` when that is another node; null when it is this one or nobody. */
  ownerUrl(key: string): Promise<string | null>;
  /** Publishes this node's public URL, so peers can redirect players to it. */
  announce(url: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the runtime of a node that joins a fleet (`--nats`): the same ActorSystem and kinds as an
 * embedded node, over NatsKvStore, with a FleetRouter that forwards messages for keys other nodes own
 * and a NodeEndpoint that serves theirs for ours. `kvView` wraps the KV store every part uses (the
 * cluster bench counts the writes each op waits for).
 */
export async function buildFleetRuntime(
  config: NodeConfig,
  outbox: Outbox,
  node: NodeState,
  events: RuntimeEvents,
  register: (system: ActorSystem) => void,
  kvView: (kv: KvStore) => KvStore = (kv) => kv,
): Promise<FleetRuntime> {
  const nc = await connectNats({
    servers: config.nats,
    name: config.nodeId,
    ...(config.natsUser === undefined ? {} : { user: config.natsUser }),
    ...(config.natsPass === undefined ? {} : { pass: config.natsPass }),
    ...(config.natsToken === undefined ? {} : { token: config.natsToken }),
  });
  const kv = kvView(new NatsKvStore(nc, { replicas: config.natsReplicas }));
  const bus = new NatsBus(nc);
  const scheduler = realScheduler();
  const identity = { node: config.nodeId, incarnation: randomBytes(8).toString("hex") };
  const claims = await kv.bucket("claims");
  const nodes = await kv.bucket("nodes");
  const store = new KvActorStore({ claims, snapshots: await kv.bucket("lobbies"), identity, scheduler });
  const router = new FleetRouter({ claims, bus, identity, scheduler }).start();
  const system = new ActorSystem({ store, outbox, scheduler, random: cryptoRandom(), node, events, router });
  register(system);
  const endpoint = new NodeEndpoint({ bus, node: config.nodeId, system });
  await endpoint.start();
  return {
    system,
    ownerUrl: async (key) => {
      const location = await router.locate(key);
      return location.kind === "remote" ? urlOf(nodes, location.node) : null;
    },
    announce: async (url) => {
      await nodes.put(config.nodeId, pack({ url }));
    },
    async close() {
      endpoint.stop();
      router.stop();
      system.close();
      await nc.drain().catch(() => undefined);
    },
  };
}

async function urlOf(nodes: KvBucket, node: string): Promise<string | null> {
  const entry = await nodes.get(node);
  if (!entry) return null;
  const record = nodeRecordSchema.safeParse(unpack(entry.value));
  return record.success ? record.data.url : null;
}
