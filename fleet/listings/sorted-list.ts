import type { ListedLobby } from "./query-order.ts";
import { compareScalars } from "./query-order.ts";
import type { Scalar, SortKey } from "../../actors/common/query-language.ts";

/**
 * The lines that have one field, sorted by (value, code) ascending, in chunks of at most `maxChunk`: an
 * insert or a removal moves at most one chunk's entries (a plain sorted array of 100,000 lines would move
 * half of them), and a walk from any key starts after two binary searches. Pure.
 */

/** One line's place in the list. */
export interface SortedEntry {
  readonly value: Scalar;
  readonly code: string;
  readonly line: ListedLobby;
}

const maxChunk = 512;

/** `xs[i]`, which the caller knows is there (a position inside the list). */
function item<T>(xs: readonly T[], i: number): T {
  const x = xs[i];
  if (x === undefined) throw new RangeError(`no entry at ${i}`);
  return x;
}

function lastOf<T>(xs: readonly T[]): T {
  return item(xs, xs.length - 1);
}

function compare(a: SortedEntry | SortKey, value: Scalar, code: string): number {
  if (a.value === null) return 1;
  const c = compareScalars(a.value, value);
  if (c !== 0) return c;
  return a.code === code ? 0 : a.code < code ? -1 : 1;
}

/** Where an entry is: its chunk and its index in it. */
interface Position {
  chunk: number;
  index: number;
}

export class SortedList {
  private readonly chunks: SortedEntry[][] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** The first position whose entry is at or after (value, code); past the end when there is none. */
  private lowerBound(value: Scalar, code: string): Position {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = item(this.chunks, mid);
      if (compare(lastOf(chunk), value, code) < 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo === this.chunks.length) return { chunk: lo, index: 0 };
    const chunk = item(this.chunks, lo);
    let a = 0;
    let b = chunk.length;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (compare(item(chunk, mid), value, code) < 0) a = mid + 1;
      else b = mid;
    }
    return { chunk: lo, index: a };
  }

  /** Replaces every entry with `entries` (any order): one sort, rather than an insert each. */
  load(entries: SortedEntry[]): void {
    entries.sort((a, b) => compare(a, b.value, b.code));
    this.chunks.length = 0;
    const half = maxChunk >> 1;
    for (let i = 0; i < entries.length; i += half) this.chunks.push(entries.slice(i, i + half));
    this.count = entries.length;
  }

  insert(entry: SortedEntry): void {
    this.count += 1;
    if (this.chunks.length === 0) {
      this.chunks.push([entry]);
      return;
    }
    const at = this.lowerBound(entry.value, entry.code);
    const ci = Math.min(at.chunk, this.chunks.length - 1);
    const chunk = item(this.chunks, ci);
    chunk.splice(at.chunk === ci ? at.index : chunk.length, 0, entry);
    if (chunk.length > maxChunk) this.chunks.splice(ci + 1, 0, chunk.splice(maxChunk >> 1));
  }

  /** Removes the entry of (value, code); false when there is none. */
  remove(value: Scalar, code: string): boolean {
    const at = this.lowerBound(value, code);
    const chunk = this.chunks[at.chunk];
    if (
      chunk === undefined ||
      at.index >= chunk.length ||
      compare(item(chunk, at.index), value, code) !== 0
    ) {
      return false;
    }
    chunk.splice(at.index, 1);
    if (chunk.length === 0) this.chunks.splice(at.chunk, 1);
    this.count -= 1;
    return true;
  }

  /**
   * Visits entries in order — ascending, or descending (`desc`) — starting strictly after `from` (from
   * the first, or the last, entry without it), until `visit` returns false.
   */
  walk(from: SortKey | null, desc: boolean, visit: (entry: SortedEntry) => boolean): void {
    let { chunk, index } = this.startOf(from, desc);
    while (chunk >= 0 && chunk < this.chunks.length) {
      const entries = item(this.chunks, chunk);
      if (desc) {
        for (let i = index; i >= 0; i--) if (!visit(item(entries, i))) return;
        chunk -= 1;
        index = chunk >= 0 ? item(this.chunks, chunk).length - 1 : 0;
      } else {
        for (let i = index; i < entries.length; i++) if (!visit(item(entries, i))) return;
        chunk += 1;
        index = 0;
      }
    }
  }

  private startOf(from: SortKey | null, desc: boolean): Position {
    if (from?.value == null) {
      if (!desc) return { chunk: 0, index: 0 };
      const last = this.chunks.length - 1;
      return { chunk: last, index: last >= 0 ? item(this.chunks, last).length - 1 : 0 };
    }
    const value: Scalar = from.value;
    const at = this.lowerBound(value, from.code);
    if (desc) return this.before(at);
    const chunk = this.chunks[at.chunk];
    // Strictly after: skip the entry equal to the key, if it is still there.
    if (
      chunk !== undefined &&
      at.index < chunk.length &&
      compare(item(chunk, at.index), value, from.code) === 0
    ) {
      return at.index + 1 < chunk.length
        ? { chunk: at.chunk, index: at.index + 1 }
        : { chunk: at.chunk + 1, index: 0 };
    }
    return at;
  }

  /** The position just before `at` (chunk -1 when there is none). */
  private before(at: Position): Position {
    if (at.index > 0) return { chunk: at.chunk, index: at.index - 1 };
    const chunk = at.chunk - 1;
    return { chunk, index: chunk >= 0 ? item(this.chunks, chunk).length - 1 : 0 };
  }
}
