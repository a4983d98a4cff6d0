import type { Scalar } from "../../actors/common/query-language.ts";
import type { FieldReader, ListedLobby } from "./query-order.ts";
import { SortedList, type SortedEntry } from "./sorted-list.ts";

/**
 * A narrowed order: the lines whose fields hold given values (the `eq` and `in` filters a query keeps
 * asking), sorted by one field. A walk of the order's whole list tests every line it passes, and when
 * the lines that match cluster away from the head of the order (a mode that no lobby of the highest
 * levels has) it passes thousands before a page is full; a walk of the narrowed list passes only lines
 * that already hold the values. Built on a query's first use from the smallest value table, then kept
 * current with every change like the index's own lists. Pure.
 */

/** One field's required values (an `eq` filter's one, an `in` filter's list). */
export interface Pinned {
  readonly field: string;
  readonly read: FieldReader;
  readonly values: ReadonlySet<Scalar>;
}

/** The key of a narrowed order: its pinned values (in a fixed order) and its order field. */
export function narrowedKey(pins: readonly Pinned[], orderField: string): string {
  const pairs = pins
    .map((p) => [p.field, [...p.values].map((v) => JSON.stringify(v)).sort()] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // JSON, so no value can make two different sets of pins read as one key.
  return JSON.stringify([orderField, pairs]);
}

export class NarrowedOrder {
  /** Lines that hold every pinned value and the order field, by (value, code). */
  readonly sorted = new SortedList();
  /** Codes of lines that hold every pinned value but lack the order field. */
  readonly missing = new Map<string, ListedLobby>();
  /** When it was last used (a count of queries, never the clock): the least recent goes first. */
  lastUsed = 0;

  constructor(
    readonly key: string,
    private readonly pins: readonly Pinned[],
    private readonly order: FieldReader,
  ) {}

  /** How many lines it holds. */
  get size(): number {
    return this.sorted.size + this.missing.size;
  }

  private holds(line: ListedLobby): boolean {
    return this.pins.every((p) => {
      const value = p.read(line);
      return value !== null && p.values.has(value);
    });
  }

  /** Fills it from `candidates` (a superset of its lines: the smallest pinned value's lines). */
  fill(candidates: Iterable<ListedLobby>): void {
    const entries: SortedEntry[] = [];
    for (const line of candidates) {
      if (!this.holds(line)) continue;
      const value = this.order(line);
      if (value === null) this.missing.set(line.code, line);
      else entries.push({ value, code: line.code, line });
    }
    this.sorted.load(entries);
  }

  /** A line that was added or changed (after `remove` of its old version). */
  add(line: ListedLobby): void {
    if (!this.holds(line)) return;
    const value = this.order(line);
    if (value === null) this.missing.set(line.code, line);
    else this.sorted.insert({ value, code: line.code, line });
  }

  /** The old version of a line that changed or went. */
  remove(line: ListedLobby): void {
    if (!this.holds(line)) return;
    const value = this.order(line);
    if (value === null) this.missing.delete(line.code);
    else this.sorted.remove(value, line.code);
  }
}

/** How many narrowed orders an index keeps, and how many lines they may hold together (× its size). */
export const maxNarrowed = 16;
export const narrowedShare = 2;

/**
 * The narrowed orders of one index, the least recently used dropped past `maxNarrowed` of them or past
 * `narrowedShare` × the index's size lines in all.
 */
export class NarrowedOrders {
  private readonly byKey = new Map<string, NarrowedOrder>();
  private uses = 0;

  /** The narrowed order of `key`, made and filled by `make` when there is none yet. */
  get(key: string, make: () => NarrowedOrder, indexSize: number): NarrowedOrder {
    this.uses += 1;
    let found = this.byKey.get(key);
    if (found === undefined) {
      found = make();
      this.byKey.set(key, found);
      this.trim(indexSize, found);
    }
    found.lastUsed = this.uses;
    return found;
  }

  /** How many it keeps (for tests). */
  get count(): number {
    return this.byKey.size;
  }

  add(line: ListedLobby): void {
    for (const n of this.byKey.values()) n.add(line);
  }

  remove(line: ListedLobby): void {
    for (const n of this.byKey.values()) n.remove(line);
  }

  clear(): void {
    this.byKey.clear();
  }

  private trim(indexSize: number, keep: NarrowedOrder): void {
    const total = (): number => [...this.byKey.values()].reduce((n, o) => n + o.size, 0);
    while (this.byKey.size > 1 && (this.byKey.size > maxNarrowed || total() > narrowedShare * indexSize)) {
      let oldest: NarrowedOrder | null = null;
      for (const n of this.byKey.values()) {
        if (n !== keep && (oldest === null || n.lastUsed < oldest.lastUsed)) oldest = n;
      }
      if (oldest === null) return;
      this.byKey.delete(oldest.key);
    }
  }
}
