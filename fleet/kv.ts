/**
 * The key-value store the fleet consumes: claims, snapshots and heartbeats. Shaped after JetStream KV so
 * the NATS implementation is a thin adapter; the in-memory one (embedded mode) keeps the same rules.
 * Operational failures throw KvError (kv-error.ts); invalid keys and arguments throw TypeError.
 */

/** One stored value, or the marker a delete left. */
export interface KvEntry {
  readonly key: string;
  /** Empty for a `DEL` entry. A fresh copy: the caller may keep or mutate it. */
  readonly value: Uint8Array;
  /** The bucket's sequence number of this write: increasing across all keys of the bucket, not per key. */
  readonly revision: number;
  readonly operation: KvOperation;
}

/** What an entry records: a value written, or the key deleted. */
export type KvOperation = "PUT" | "DEL";

/** How a bucket is made when it does not exist yet; an existing bucket keeps its own settings. */
export interface KvBucketOptions {
  /** Copies kept in a cluster (NATS R1/R3); ignored in memory. Default 1. */
  readonly replicas?: number;
  /** Entries kept per key, 1–64 (a delete marker counts as one). Default 1. */
  readonly history?: number;
}

/** Which entries a watch delivers. */
export interface KvWatchOptions {
  /** Only keys starting with this string (a plain prefix, not a subject filter). Default: every key. */
  readonly prefix?: string;
  /**
   * Deliver every kept entry from this revision on, then live ones — for resuming after `lastSeen + 1`.
   * Without it the watch starts with the latest entry of each key (a deleted key may show as `DEL`).
   */
  readonly fromRevision?: number;
}

/** A running watch. */
export interface KvWatch {
  /** Stops delivery; entries not yet delivered are dropped. Idempotent. */
  stop(): void;
}

/** One bucket: keys with values and a per-bucket revision sequence. */
export interface KvBucket {
  readonly name: string;
  /** The latest value of `key`, read so that every write that returned is visible; null if missing or deleted. */
  get(key: string): Promise<KvEntry | null>;
  /** Writes `key` only if it has no live value (a deleted key may be created again); returns the revision. Throws `exists`. */
  create(key: string, value: Uint8Array): Promise<number>;
  /** Compare-and-set: writes only if the key's latest revision is `expectedRevision`. Throws `wrong-revision` (also for a missing key). */
  update(key: string, value: Uint8Array, expectedRevision: number): Promise<number>;
  /** Writes unconditionally; returns the revision. */
  put(key: string, value: Uint8Array): Promise<number>;
  /** Deletes `key`, leaving a `DEL` entry; with `expectedRevision`, a compare-and-set delete (throws `wrong-revision`). */
  delete(key: string, opts?: { readonly expectedRevision?: number }): Promise<void>;
  /** Keys with a live value, optionally only those starting with `prefix`; in no particular order. */
  keys(prefix?: string): Promise<string[]>;
  /**
   * Delivers existing entries (see KvWatchOptions), then every later write and delete, in revision order,
   * one at a time and never synchronously inside the call that caused it.
   */
  watch(opts: KvWatchOptions, onEntry: (entry: KvEntry) => void): KvWatch;
}

/** A connection to a KV store: opens buckets by name. */
export interface KvStore {
  /** Opens the bucket `name`, making it with `opts` when it does not exist. */
  bucket(name: string, opts?: KvBucketOptions): Promise<KvBucket>;
  /** Stops every watch of this connection; later operations fail with `unavailable`. Idempotent. */
  close(): Promise<void>;
}
