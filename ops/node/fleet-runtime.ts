import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { ActorSystem, BlobStore } from "../../actors/runtime/index.ts";
import {
  type FleetNode,
  NatsBlobStore,
  NatsBus,
  NatsKvStore,
  connectNats,
  cryptoRandom,
  fleetNodeFrom,
  realScheduler,
  type Bus,
  type FleetNodeHooks,
  type FleetNodeSettings,
  type KvStore,
} from "../../fleet/index.ts";
import { PROTOCOL_VERSION } from "../../gateway/index.ts";
import { resultSessionsOf, type NodeConfig } from "../config.ts";
import { natsAuthOf } from "../nats/nats-auth.ts";
import { foyerVersion } from "../version.ts";
import { openListings, type NodeListings } from "./node-listings.ts";

/** A fleet node over NATS, with the connection it runs on. */
export interface FleetRuntime {
  readonly fleet: FleetNode;
  readonly system: ActorSystem;
  /** The node's NATS connection as a bus: the studio's events are published on it (docs/server-api.md). */
  readonly bus: Bus;
  /** Room documents: the `foyer_blobs` JetStream object store, replicated as the KV buckets are. */
  readonly blobs: BlobStore;
  /** The public lobbies of the whole fleet, for queries. */
  readonly listings: NodeListings;
  /** Closes the node, then its blob store and its connection. */
  close(): Promise<void>;
}

/** The fleet settings of a node's configuration. */
export function fleetNodeSettingsOf(config: NodeConfig): FleetNodeSettings {
  return {
    nodeId: config.nodeId,
    region: config.region,
    heartbeatMs: config.fleetHeartbeatMs,
    failureTimeoutMs: config.failureTimeoutMs,
    drainDeadlineMs: config.drainDeadlineMs,
    drainConcurrency: config.drainConcurrency,
    relayAfterMoveMs: config.relayAfterMoveMs,
    version: foyerVersion,
    protocol: PROTOCOL_VERSION + config.protocolBump,
    resultSessions: resultSessionsOf(config),
    maxRooms: config.maxRooms,
    heartbeatLimits: config.heartbeatLimits,
    claimsCacheSize: config.claimsCache,
    claimsWatch: config.claimsWatch,
    ...(config.maxLobbies === 0 ? {} : { maxLobbies: config.maxLobbies }),
  };
}

function newIncarnation(): string {
  return randomBytes(8).toString("hex");
}

/**
 * Starts a node that joins a fleet (`--nats`): connects to NATS, opens its KV buckets and blob store,
 * and starts a FleetNode over them. `kvView` wraps the KV store every part uses (the cluster bench
 * counts the writes each op waits for).
 */
export async function startFleetRuntime(
  config: NodeConfig,
  hooks: FleetNodeHooks,
  kvView: (kv: KvStore) => KvStore = (kv) => kv,
): Promise<FleetRuntime> {
  const nc = await connectNats({ servers: config.nats, name: config.nodeId, ...natsAuthOf(config) });
  const kv = kvView(new NatsKvStore(nc, { replicas: config.natsReplicas }));
  const blobs = await NatsBlobStore.open(nc, {
    maxBytes: config.maxBlobBytes,
    replicas: config.natsReplicas,
  });
  const bus = new NatsBus(nc);
  const scheduler = realScheduler();
  const listings = await openListings(kv, { node: config.nodeId, indexed: config.lobbyIndex, scheduler });
  const fleet = await fleetNodeFrom(
    {
      kv,
      bus,
      blobs,
      scheduler,
      monotonic: () => performance.now(),
      wallClock: () => Date.now(),
      random: cryptoRandom(),
      newIncarnation,
      // Snapshots spread over the fleet's shards (one stream and Raft leader each); the node sees one bucket.
      snapshotShards: { asked: config.snapshotShards },
    },
    fleetNodeSettingsOf(config),
    // The listings are tapped before any lobby runs, so none tells the directory actor instead.
    {
      ...hooks,
      register: (system) => {
        hooks.register(system);
        listings.attach(system);
      },
    },
  );
  await fleet.start();
  return {
    fleet,
    system: fleet.system,
    bus,
    blobs,
    listings,
    async close() {
      listings.close();
      await fleet.close();
      await blobs.close();
      await nc.drain().catch(() => undefined);
    },
  };
}
