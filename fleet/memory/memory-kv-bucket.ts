import type { KvEntry, KvOperation } from "../kv.ts";
import { KvError, KvErrorCodes } from "../kv-error.ts";

/** Told of each entry appended to a bucket whose key starts with `prefix`. */
export interface BucketListener {
  readonly prefix: string;
  /** `entry` is this listener's own copy. */
  notify(entry: KvEntry): void;
}

/**
 * One entry as the bucket keeps it. Its bytes are packed into a one-byte string (a byte a character):
 * a `Uint8Array` of its own costs its view and its `ArrayBuffer` beside the bytes, about 180 B of
 * heap and a native allocation a value, and an embedded node keeps a few values per seated player.
 */
interface KeptEntry {
  readonly bytes: string;
  readonly revision: number;
  readonly operation: KvOperation;
  /** The key's entry before this one, while the bucket's history still keeps it. */
  older: KeptEntry | undefined;
}

/**
 * One bucket's data in memory, shared by every connection that opens it. Each operation is synchronous,
 * so it is atomic: that is what makes `create` and compare-and-set exactly-once here. Values are copied
 * in, and every entry handed out is a fresh copy the caller may keep or change.
 */
export class MemoryBucketData {
  private sequence = 0;
  /**
   * Per key, its latest entry, which links to the older ones still kept: at most `history` (a delete
   * marker counts, as in NATS).
   */
  private readonly kept = new Map<string, KeptEntry>();
  private readonly listeners = new Set<BucketListener>();

  constructor(
    readonly name: string,
    readonly history: number,
  ) {}

  /** The live value of `key`, or undefined when it is missing or deleted. */
  get(key: string): KvEntry | undefined {
    const last = this.kept.get(key);
    return last?.operation === "PUT" ? entryOf(key, last) : undefined;
  }

  /** Appends a value if the key has no live one. */
  create(key: string, value: Uint8Array): number {
    const last = this.kept.get(key);
    if (last?.operation === "PUT") {
      throw new KvError(KvErrorCodes.exists, `${this.name}: ${key} exists (revision ${last.revision})`);
    }
    return this.append(key, pack(value), "PUT");
  }

  /** Appends a value if the key's latest entry (a delete marker too, as in NATS) is at `expected`. */
  update(key: string, value: Uint8Array, expected: number): number {
    this.expect(key, expected);
    return this.append(key, pack(value), "PUT");
  }

  /** Appends a value unconditionally. */
  put(key: string, value: Uint8Array): number {
    return this.append(key, pack(value), "PUT");
  }

  /** Appends a delete marker, compare-and-set when `expected` is given. */
  delete(key: string, expected: number | undefined): void {
    if (expected !== undefined) this.expect(key, expected);
    this.append(key, "", "DEL");
  }

  /** Keys with a live value that start with `prefix`, sorted. */
  keys(prefix: string): string[] {
    const keys: string[] = [];
    for (const [key, last] of this.kept) {
      if (key.startsWith(prefix) && last.operation === "PUT") keys.push(key);
    }
    return keys.sort();
  }

  /**
   * What a new watch sees first, in revision order: every kept entry from `fromRevision` on, or without
   * it the latest entry of each key.
   */
  existing(prefix: string, fromRevision: number | undefined): KvEntry[] {
    const found: KvEntry[] = [];
    for (const [key, last] of this.kept) {
      if (!key.startsWith(prefix)) continue;
      if (fromRevision === undefined) {
        found.push(entryOf(key, last));
        continue;
      }
      for (let kept: KeptEntry | undefined = last; kept !== undefined; kept = kept.older) {
        if (kept.revision >= fromRevision) found.push(entryOf(key, kept));
      }
    }
    return found.sort((a, b) => a.revision - b.revision);
  }

  /** Registers a listener for later entries; returns the function that removes it. */
  listen(listener: BucketListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private expect(key: string, expected: number): void {
    const found = this.kept.get(key)?.revision;
    if (found !== expected) {
      throw new KvError(
        KvErrorCodes.wrongRevision,
        `${this.name}: ${key} is at revision ${found ?? "none"}, not ${expected}`,
      );
    }
  }

  private append(key: string, bytes: string, operation: KvOperation): number {
    this.sequence += 1;
    const entry: KeptEntry = { bytes, revision: this.sequence, operation, older: this.kept.get(key) };
    // The history's last kept entry lets go of the older ones.
    let last = entry;
    for (let n = 1; n < this.history && last.older !== undefined; n++) last = last.older;
    last.older = undefined;
    this.kept.set(key, entry);
    for (const listener of this.listeners) {
      if (key.startsWith(listener.prefix)) listener.notify(entryOf(key, entry));
    }
    return entry.revision;
  }
}

/** A copy of `value`'s bytes, a character a byte. */
function pack(value: Uint8Array): string {
  if (value.byteLength === 0) return "";
  return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("latin1");
}

/** A kept entry as a caller gets it: a value of its own. */
function entryOf(key: string, kept: KeptEntry): KvEntry {
  const value = new Uint8Array(kept.bytes.length);
  if (kept.bytes.length > 0) Buffer.from(value.buffer).write(kept.bytes, "latin1");
  return { key, value, revision: kept.revision, operation: kept.operation };
}
