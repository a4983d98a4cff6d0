import { z } from "zod";
import { isExists } from "./kv-error.ts";
import type { KvBucket, KvStore } from "./kv.ts";
import { ShardedKvBucket, maxShards } from "./sharded-kv.ts";
import { readBack, type ReadBackPolicy } from "./protocol/read-back.ts";
import { realScheduler } from "./real-scheduler.ts";

/**
 * A fleet's snapshot layout: how many buckets its snapshots are sharded over. It is fixed when the fleet is
 * made (its first node writes it) and recorded in the `claims` bucket under `fleet.layout` — a key no actor
 * key can take, as escaped actor keys never hold a `.` — so every node hashes a key to the same bucket.
 */
export const layoutKey = "fleet.layout";

/** The base name of the snapshot buckets: `lobbies` alone, or `lobbies-00` … when sharded. */
export const snapshotBucketBase = "lobbies";

/** The shards of a new fleet whose first node was not told a count. */
export const defaultSnapshotShards = 4;

/**
 * A node reads the layout right after making the buckets, when a new R3 stream may not have elected its
 * leader yet (its first calls then time out): it keeps asking for up to 30 s, as it would wait for NATS.
 */
const startupPolicy: ReadBackPolicy = { attempts: 60, delayMs: 500 };

/** `call`, retried while the store does not answer (a create that timed out and landed then meets `exists`). */
function untilAnswered<T>(call: () => Promise<T>): Promise<T> {
  return readBack(call, startupPolicy, realScheduler());
}

const layoutSchema = z.object({ snapshotShards: z.number().int().min(1).max(maxShards) });

/** A node was started with a snapshot shard count that is not its fleet's. */
export class SnapshotLayoutError extends Error {
  constructor(asked: number, recorded: number) {
    super(
      `this fleet shards its snapshots over ${recorded} bucket(s), fixed when it was made, but this node was ` +
        `started with --snapshot-shards ${asked}: start it with --snapshot-shards ${recorded} (or without the flag)`,
    );
    this.name = "SnapshotLayoutError";
  }
}

/**
 * The fleet's snapshot shard count: the recorded one, or — for a fleet with no record — the one this node
 * records (`asked`, or the default). A fleet that has heartbeats but no record was made by a release that
 * kept every snapshot in one bucket, and keeps that layout. Throws SnapshotLayoutError when `asked` is not
 * the fleet's.
 */
export async function fleetSnapshotShards(
  claims: KvBucket,
  nodes: KvBucket,
  asked: number | undefined,
): Promise<number> {
  const recorded = await recordedSnapshotShards(claims);
  const shards = recorded ?? (await recordLayout(claims, nodes, asked));
  if (asked !== undefined && asked !== shards) throw new SnapshotLayoutError(asked, shards);
  return shards;
}

/** Opens the fleet's snapshot bucket(s) as one KvBucket, checking the layout first. */
export async function openSnapshotBucket(
  kv: Pick<KvStore, "bucket">,
  claims: KvBucket,
  nodes: KvBucket,
  asked?: number,
): Promise<KvBucket> {
  return ShardedKvBucket.open(kv, snapshotBucketBase, await fleetSnapshotShards(claims, nodes, asked));
}

/** The shard count the fleet recorded, or undefined before its first node made it. */
export async function recordedSnapshotShards(claims: KvBucket): Promise<number | undefined> {
  const entry = await untilAnswered(() => claims.get(layoutKey));
  if (entry === null) return undefined;
  const parsed = layoutSchema.safeParse(parseJsonOrNull(new TextDecoder().decode(entry.value)));
  if (!parsed.success)
    throw new Error(`the fleet's ${layoutKey} record does not parse: ${parsed.error.message}`);
  return parsed.data.snapshotShards;
}

/** Writes the layout of a fleet that has none; a node that loses the race takes the winner's. */
async function recordLayout(claims: KvBucket, nodes: KvBucket, asked: number | undefined): Promise<number> {
  const madeBefore = (await untilAnswered(() => nodes.keys())).length > 0;
  const shards = madeBefore ? 1 : (asked ?? defaultSnapshotShards);
  try {
    const record = new TextEncoder().encode(JSON.stringify({ snapshotShards: shards }));
    await untilAnswered(() => claims.create(layoutKey, record));
    return shards;
  } catch (error) {
    if (!isExists(error)) throw error;
    const winner = await recordedSnapshotShards(claims);
    if (winner === undefined)
      throw new Error(`the fleet's ${layoutKey} record vanished while it was made`, { cause: error });
    return winner;
  }
}

function parseJsonOrNull(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
