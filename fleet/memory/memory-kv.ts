import type { KvBucket, KvBucketOptions, KvEntry, KvStore, KvWatch, KvWatchOptions } from "../kv.ts";
import { KvError, KvErrorCodes } from "../kv-error.ts";
import { assertBucketName, assertKvKey, assertKvPrefix, assertRevision } from "../kv-key.ts";
import { MemoryBucketData } from "./memory-kv-bucket.ts";
import { type HandlerErrorSink, throwLater } from "../handler-error.ts";

/** Options of one connection to a MemoryKvServer. */
export interface MemoryKvConnectOptions {
  /** Receives exceptions thrown by watch callbacks (default: rethrown outside the delivery loop). */
  readonly onHandlerError?: HandlerErrorSink;
}

/**
 * The in-process KV of embedded mode: buckets held in memory, shared by every connection made from this
 * server, as several nats connections share one cluster's buckets.
 */
export class MemoryKvServer {
  private readonly buckets = new Map<string, MemoryBucketData>();

  /** Opens a connection; closing it stops only its own watches. */
  connect(options: MemoryKvConnectOptions = {}): KvStore {
    return new MemoryKvStore(this.buckets, options.onHandlerError ?? throwLater);
  }
}

/** One connection to a MemoryKvServer. */
class MemoryKvStore implements KvStore {
  closed = false;
  readonly watches = new Set<KvWatch>();

  constructor(
    private readonly buckets: Map<string, MemoryBucketData>,
    readonly onHandlerError: HandlerErrorSink,
  ) {}

  bucket(name: string, opts: KvBucketOptions = {}): Promise<KvBucket> {
    return this.run(() => {
      assertBucketName(name);
      const replicas = opts.replicas ?? 1;
      const history = opts.history ?? 1;
      if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) {
        throw new TypeError(`invalid replicas ${replicas}: 1 to 5`);
      }
      if (!Number.isInteger(history) || history < 1 || history > 64) {
        throw new TypeError(`invalid history ${history}: 1 to 64`);
      }
      let data = this.buckets.get(name);
      if (data === undefined) {
        data = new MemoryBucketData(name, history);
        this.buckets.set(name, data);
      }
      return new MemoryKvBucket(data, this);
    });
  }

  close(): Promise<void> {
    this.closed = true;
    for (const watch of [...this.watches]) watch.stop();
    return Promise.resolve();
  }

  /** Runs a synchronous operation as a promise: a throw becomes a rejection, as over the network. */
  run<T>(operation: () => T): Promise<T> {
    return new Promise((resolve) => {
      if (this.closed) throw new KvError(KvErrorCodes.unavailable, "the KV connection is closed");
      resolve(operation());
    });
  }
}

/** A bucket opened through one connection: checks arguments; the bucket's data copies values in and out. */
class MemoryKvBucket implements KvBucket {
  constructor(
    private readonly data: MemoryBucketData,
    private readonly store: MemoryKvStore,
  ) {}

  get name(): string {
    return this.data.name;
  }

  get(key: string): Promise<KvEntry | null> {
    return this.store.run(() => {
      assertKvKey(key);
      return this.data.get(key) ?? null;
    });
  }

  create(key: string, value: Uint8Array): Promise<number> {
    return this.store.run(() => {
      assertKvKey(key);
      return this.data.create(key, value);
    });
  }

  update(key: string, value: Uint8Array, expectedRevision: number): Promise<number> {
    return this.store.run(() => {
      assertKvKey(key);
      assertRevision(expectedRevision);
      return this.data.update(key, value, expectedRevision);
    });
  }

  put(key: string, value: Uint8Array): Promise<number> {
    return this.store.run(() => {
      assertKvKey(key);
      return this.data.put(key, value);
    });
  }

  delete(key: string, opts: { readonly expectedRevision?: number } = {}): Promise<void> {
    return this.store.run(() => {
      assertKvKey(key);
      if (opts.expectedRevision !== undefined) assertRevision(opts.expectedRevision);
      this.data.delete(key, opts.expectedRevision);
    });
  }

  keys(prefix = ""): Promise<string[]> {
    return this.store.run(() => {
      assertKvPrefix(prefix);
      return this.data.keys(prefix);
    });
  }

  watch(opts: KvWatchOptions, onEntry: (entry: KvEntry) => void): KvWatch {
    const prefix = opts.prefix ?? "";
    assertKvPrefix(prefix);
    if (opts.fromRevision !== undefined) assertRevision(opts.fromRevision);
    if (this.store.closed) throw new KvError(KvErrorCodes.unavailable, "the KV connection is closed");
    let active = true;
    // Every delivery is its own microtask, queued in revision order, so history comes before live
    // entries, nothing runs inside the writer's call, and a stopped watch drops what is still queued.
    // Each entry the bucket's data hands out is already this watch's own copy.
    const deliver = (entry: KvEntry): void => {
      queueMicrotask(() => {
        if (!active) return;
        try {
          onEntry(entry);
        } catch (error) {
          this.store.onHandlerError(error);
        }
      });
    };
    for (const entry of this.data.existing(prefix, opts.fromRevision)) deliver(entry);
    const unlisten = this.data.listen({ prefix, notify: deliver });
    const watch: KvWatch = {
      stop: () => {
        active = false;
        unlisten();
        this.store.watches.delete(watch);
      },
    };
    this.store.watches.add(watch);
    return watch;
  }
}
