import type { BlobStore, Random, Scheduler } from "../actors/runtime/index.ts";
import type { Bus } from "./bus.ts";
import { FleetNode } from "./fleet-node.ts";
import type { FleetNodeHooks, FleetNodePorts, FleetNodeSettings } from "./fleet-node-ports.ts";
import type { KvStore } from "./kv.ts";
import { claimIndexBucketName } from "./protocol/index.ts";
import { openSnapshotBucket } from "./snapshot-layout.ts";

/**
 * The world a fleet node runs in: a KV connection, a bus, a blob store, clocks and randomness. `foyer
 * node` gives it NATS and the machine's clocks; the simulation its own store, bus and virtual clocks.
 */
export interface FleetWorld {
  readonly kv: Pick<KvStore, "bucket">;
  readonly bus: Bus;
  readonly blobs: BlobStore;
  readonly scheduler: Scheduler;
  readonly monotonic: () => number;
  readonly wallClock: () => number;
  readonly random: Random;
  readonly newIncarnation: () => string;
  /**
   * Snapshots spread over the fleet's shards (`foyer node`: the count asked for, or the fleet's own when
   * undefined); absent, one `lobbies` bucket (the simulation).
   */
  readonly snapshotShards?: { readonly asked: number | undefined };
}

/** The KV buckets of a fleet, by the role each plays. */
export const fleetBucketNames = {
  claims: "claims",
  nodes: "nodes",
  lobbies: "lobbies",
  claimIndex: claimIndexBucketName,
} as const;

/** The ports of a fleet node in `world`: its buckets opened by their fleet names, the rest as given. */
export async function fleetNodePorts(
  world: FleetWorld,
  settings: FleetNodeSettings,
  hooks: FleetNodeHooks,
): Promise<FleetNodePorts> {
  const { kv, snapshotShards, ...rest } = world;
  const claims = await kv.bucket(fleetBucketNames.claims);
  const nodes = await kv.bucket(fleetBucketNames.nodes);
  const claimIndex = await kv.bucket(fleetBucketNames.claimIndex);
  const lobbies =
    snapshotShards === undefined
      ? await kv.bucket(fleetBucketNames.lobbies)
      : await openSnapshotBucket(kv, claims, nodes, snapshotShards.asked);
  return {
    ...rest,
    buckets: { claims, nodes, lobbies, claimIndex },
    settings,
    hooks,
  };
}

/**
 * A fleet node in `world`, built but not started: the one assembly that `foyer node` and the simulation
 * share, so the simulation's seeds check the wiring that runs (a test holds both to it).
 */
export async function fleetNodeFrom(
  world: FleetWorld,
  settings: FleetNodeSettings,
  hooks: FleetNodeHooks,
): Promise<FleetNode> {
  return new FleetNode(await fleetNodePorts(world, settings, hooks));
}
