import type { KV, KvEntry as NatsKvEntry } from "nats";
import type { KvBucket, KvEntry, KvWatch, KvWatchOptions } from "../kv.ts";
import { KvError, KvErrorCodes } from "../kv-error.ts";
import { assertKvKey, assertKvPrefix, assertRevision } from "../kv-key.ts";
import { kvFilterForPrefix } from "./kv-prefix-filter.ts";
import type { HandlerErrorSink } from "../handler-error.ts";
import { NatsKvWatch } from "./nats-kv-watch.ts";

/** What a bucket needs from the NatsKvStore that opened it. */
export interface NatsKvBucketHost {
  /** Runs one operation: refuses it once the store is closed, maps nats.js failures to KvError. */
  run<T>(what: string, operation: () => Promise<T>): Promise<T>;
  /** Throws KvError("unavailable") once the store is closed. */
  assertOpen(): void;
  /** Watches are stopped with the store and made again after a reconnect. */
  track(watch: NatsKvWatch): void;
  untrack(watch: NatsKvWatch): void;
  /** The JetStream request timeout. */
  timeoutMs(): number;
  onHandlerError: HandlerErrorSink;
}

/** One bucket, opened through a NatsKvStore. */
export class NatsKvBucket implements KvBucket {
  constructor(
    readonly name: string,
    private readonly kv: KV,
    private readonly store: NatsKvBucketHost,
  ) {}

  get(key: string): Promise<KvEntry | null> {
    return this.store.run(`get ${this.name}/${key}`, async () => {
      assertKvKey(key);
      const entry = await this.kv.get(key);
      return entry?.operation === "PUT" ? copyEntry(entry) : null;
    });
  }

  async create(key: string, value: Uint8Array): Promise<number> {
    const copy = new Uint8Array(value);
    try {
      return await this.store.run(`create ${this.name}/${key}`, () => {
        assertKvKey(key);
        return this.kv.create(key, copy);
      });
    } catch (error) {
      // nats.js creates with "expected last sequence 0", then over a delete marker with update: losing
      // either race is 10071, which for a create means the key has a live value.
      if (error instanceof KvError && error.code === KvErrorCodes.wrongRevision) {
        throw new KvError(KvErrorCodes.exists, `${this.name}: ${key} exists`, { cause: error });
      }
      throw error;
    }
  }

  update(key: string, value: Uint8Array, expectedRevision: number): Promise<number> {
    const copy = new Uint8Array(value);
    return this.store.run(`update ${this.name}/${key}`, () => {
      assertKvKey(key);
      assertRevision(expectedRevision);
      return this.kv.update(key, copy, expectedRevision);
    });
  }

  put(key: string, value: Uint8Array): Promise<number> {
    const copy = new Uint8Array(value);
    return this.store.run(`put ${this.name}/${key}`, () => {
      assertKvKey(key);
      return this.kv.put(key, copy);
    });
  }

  delete(key: string, opts: { readonly expectedRevision?: number } = {}): Promise<void> {
    const { expectedRevision } = opts;
    return this.store.run(`delete ${this.name}/${key}`, () => {
      assertKvKey(key);
      if (expectedRevision === undefined) return this.kv.delete(key);
      assertRevision(expectedRevision);
      return this.kv.delete(key, { previousSeq: expectedRevision });
    });
  }

  keys(prefix = ""): Promise<string[]> {
    return this.store.run(`keys ${this.name}/${prefix}*`, async () => {
      assertKvPrefix(prefix);
      const found: string[] = [];
      const iterator = await this.kv.keys(kvFilterForPrefix(prefix));
      // The listing is an ordered consumer: bound it, so a server lost meanwhile cannot hang it.
      const timer = setTimeout(() => {
        iterator.stop(new KvError(KvErrorCodes.timeout, `keys of ${this.name}: no end in time`));
      }, this.store.timeoutMs() * 5);
      try {
        for await (const key of iterator) if (key.startsWith(prefix)) found.push(key);
      } finally {
        clearTimeout(timer);
      }
      return found;
    });
  }

  watch(opts: KvWatchOptions, onEntry: (entry: KvEntry) => void): KvWatch {
    const prefix = opts.prefix ?? "";
    assertKvPrefix(prefix);
    if (opts.fromRevision !== undefined) assertRevision(opts.fromRevision);
    this.store.assertOpen();
    const filter = kvFilterForPrefix(prefix);
    const watch: NatsKvWatch = new NatsKvWatch({
      open: (revision) =>
        this.kv.watch(
          revision === undefined ? { key: filter } : { key: filter, resumeFromRevision: revision },
        ),
      prefix,
      fromRevision: opts.fromRevision,
      onEntry,
      onHandlerError: this.store.onHandlerError,
      onStop: () => {
        this.store.untrack(watch);
      },
    });
    this.store.track(watch);
    return watch;
  }
}

function copyEntry(entry: NatsKvEntry): KvEntry {
  return {
    key: entry.key,
    value: new Uint8Array(entry.value),
    revision: entry.revision,
    operation: entry.operation === "PUT" ? "PUT" : "DEL",
  };
}
