import type { KvEntry, KvOperation } from "../kv.ts";
import { KvError, KvErrorCodes } from "../kv-error.ts";

/** Told of each entry appended to a bucket whose key starts with `prefix`. */
export interface BucketListener {
  readonly prefix: string;
  notify(entry: KvEntry): void;
}

const empty = new Uint8Array(0);

/**
 * One bucket's data in memory, shared by every connection that opens it. Each operation is synchronous,
 * so it is atomic: that is what makes `create` and compare-and-set exactly-once here. Entries are kept
 * frozen and never handed out: the connection copies values in and out.
 */
export class MemoryBucketData {
  private sequence = 0;
  /** Per key, the kept entries, oldest first, at most `history` (a delete marker counts, as in NATS). */
  private readonly kept = new Map<string, KvEntry[]>();
  private readonly listeners = new Set<BucketListener>();

  constructor(
    readonly name: string,
    readonly history: number,
  ) {}

  /** The live value of `key`, or undefined when it is missing or deleted. */
  get(key: string): KvEntry | undefined {
    const last = this.latest(key);
    return last?.operation === "PUT" ? last : undefined;
  }

  /** Appends a value if the key has no live one. */
  create(key: string, value: Uint8Array): number {
    const last = this.latest(key);
    if (last?.operation === "PUT") {
      throw new KvError(KvErrorCodes.exists, `${this.name}: ${key} exists (revision ${last.revision})`);
    }
    return this.append(key, value, "PUT");
  }

  /** Appends a value if the key's latest entry (a delete marker too, as in NATS) is at `expected`. */
  update(key: string, value: Uint8Array, expected: number): number {
    this.expect(key, expected);
    return this.append(key, value, "PUT");
  }

  /** Appends a value unconditionally. */
  put(key: string, value: Uint8Array): number {
    return this.append(key, value, "PUT");
  }

  /** Appends a delete marker, compare-and-set when `expected` is given. */
  delete(key: string, expected: number | undefined): void {
    if (expected !== undefined) this.expect(key, expected);
    this.append(key, empty, "DEL");
  }

  /** Keys with a live value that start with `prefix`, sorted. */
  keys(prefix: string): string[] {
    const keys: string[] = [];
    for (const [key, entries] of this.kept) {
      if (key.startsWith(prefix) && entries.at(-1)?.operation === "PUT") keys.push(key);
    }
    return keys.sort();
  }

  /**
   * What a new watch sees first, in revision order: every kept entry from `fromRevision` on, or without
   * it the latest entry of each key.
   */
  existing(prefix: string, fromRevision: number | undefined): KvEntry[] {
    const found: KvEntry[] = [];
    for (const [key, entries] of this.kept) {
      if (!key.startsWith(prefix)) continue;
      if (fromRevision === undefined) {
        const last = entries.at(-1);
        if (last !== undefined) found.push(last);
      } else {
        found.push(...entries.filter((entry) => entry.revision >= fromRevision));
      }
    }
    return found.sort((a, b) => a.revision - b.revision);
  }

  /** Registers a listener for later entries; returns the function that removes it. */
  listen(listener: BucketListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private latest(key: string): KvEntry | undefined {
    return this.kept.get(key)?.at(-1);
  }

  private expect(key: string, expected: number): void {
    const found = this.latest(key)?.revision;
    if (found !== expected) {
      throw new KvError(
        KvErrorCodes.wrongRevision,
        `${this.name}: ${key} is at revision ${found ?? "none"}, not ${expected}`,
      );
    }
  }

  private append(key: string, value: Uint8Array, operation: KvOperation): number {
    this.sequence += 1;
    const entry: KvEntry = Object.freeze({ key, value, revision: this.sequence, operation });
    // A new array of exactly the kept entries: one grown by `push` reserves 17 slots (152 bytes) for
    // a key that, with a history of 1, never holds more than one, and an embedded node keeps a few
    // keys per seated player.
    const entries = this.kept.get(key);
    const from = entries === undefined ? 0 : Math.max(0, entries.length + 1 - this.history);
    this.kept.set(key, entries === undefined ? [entry] : [...entries.slice(from), entry]);
    for (const listener of this.listeners) {
      if (key.startsWith(listener.prefix)) listener.notify(entry);
    }
    return entry.revision;
  }
}
