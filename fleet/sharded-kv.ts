import type { KvBucket, KvBucketOptions, KvEntry, KvStore, KvWatch, KvWatchOptions } from "./kv.ts";

/** The most snapshot buckets a fleet may have: two digits in their names. */
export const maxShards = 100;

/**
 * The names of a fleet's `shards` snapshot buckets: `base` alone for one (the layout of a fleet made before
 * snapshots were sharded), else `base-00` … `base-NN`.
 */
export function shardBucketNames(base: string, shards: number): string[] {
  if (!Number.isInteger(shards) || shards < 1 || shards > maxShards)
    throw new TypeError(`snapshot shards must be an integer from 1 to ${maxShards}, got ${shards}`);
  if (shards === 1) return [base];
  return Array.from({ length: shards }, (_, i) => `${base}-${String(i).padStart(2, "0")}`);
}

/**
 * The shard of `key` among `shards`: FNV-1a (32 bits) of its UTF-16 code units, modulo the count. Every
 * node of every release must agree on it, so it is fixed here and never depends on the platform.
 */
export function shardOf(key: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

/**
 * One logical bucket over several, each key living in the one its hash picks: the snapshot store's writes
 * spread over as many JetStream streams (each its own Raft leader), while the actor store, migration and
 * failover keep using one KvBucket. Every operation on a key goes to that key's bucket, so its rules hold
 * per key as they did. What differs: a revision is its shard's sequence, so it increases per key but is
 * not comparable across keys, and a watch cannot resume from a revision (`fromRevision` throws).
 */
export class ShardedKvBucket implements KvBucket {
  readonly name: string;
  private readonly shards: readonly KvBucket[];

  constructor(name: string, shards: readonly KvBucket[]) {
    if (shards.length === 0) throw new TypeError("a sharded bucket needs at least one shard");
    this.name = name;
    this.shards = shards;
  }

  /** Opens (making when missing) the `shards` buckets of `base` on `kv`: one bucket itself when 1. */
  static async open(
    kv: Pick<KvStore, "bucket">,
    base: string,
    shards: number,
    opts?: KvBucketOptions,
  ): Promise<KvBucket> {
    const buckets = await Promise.all(shardBucketNames(base, shards).map((name) => kv.bucket(name, opts)));
    const [only] = buckets;
    return buckets.length === 1 && only !== undefined ? only : new ShardedKvBucket(base, buckets);
  }

  /** The bucket that holds `key`. */
  bucketOf(key: string): KvBucket {
    const bucket = this.shards[shardOf(key, this.shards.length)];
    if (bucket === undefined) throw new Error("unreachable: a shard index past the shards");
    return bucket;
  }

  get(key: string): Promise<KvEntry | null> {
    return this.bucketOf(key).get(key);
  }

  create(key: string, value: Uint8Array): Promise<number> {
    return this.bucketOf(key).create(key, value);
  }

  update(key: string, value: Uint8Array, expectedRevision: number): Promise<number> {
    return this.bucketOf(key).update(key, value, expectedRevision);
  }

  put(key: string, value: Uint8Array): Promise<number> {
    return this.bucketOf(key).put(key, value);
  }

  delete(key: string, opts?: { readonly expectedRevision?: number }): Promise<void> {
    return this.bucketOf(key).delete(key, opts);
  }

  async keys(prefix?: string): Promise<string[]> {
    const lists = await Promise.all(this.shards.map((shard) => shard.keys(prefix)));
    return lists.flat();
  }

  /** Each shard's entries in its own revision order; entries of different shards interleave as they come. */
  watch(opts: KvWatchOptions, onEntry: (entry: KvEntry) => void): KvWatch {
    if (opts.fromRevision !== undefined)
      throw new TypeError(
        `bucket ${this.name} is sharded: its revisions are per shard, a watch cannot resume from one`,
      );
    const watches = this.shards.map((shard) => shard.watch(opts, onEntry));
    return {
      stop: () => {
        for (const watch of watches) watch.stop();
      },
    };
  }
}
