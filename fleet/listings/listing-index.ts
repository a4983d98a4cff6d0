import {
  builtinFields,
  dataFieldPrefix,
  type IndexedKeys,
  type Query,
  type Scalar,
} from "../../actors/common/query-language.ts";
import { readerOf, type ListedLobby } from "./query-order.ts";
import { NarrowedOrder, NarrowedOrders, narrowedKey, type Pinned } from "./narrowed-order.ts";
import { runQuery, type IndexedField, type QueryPage } from "./query-plan.ts";
import { SortedList } from "./sorted-list.ts";

/**
 * A node's in-memory index of every public lobby in the fleet, built from the `listings` bucket's watch
 * (listing-feed.ts). Per line it keeps a sorted list for each field a query may order or range on and a
 * value → codes table for each field a query may test for equality, so a query visits few lines
 * (query-plan.ts). Pure: no I/O, no clock.
 */

const notHashed: ReadonlySet<string> = new Set(["code", "createdAt"]);

function fieldsOf(indexed: IndexedKeys): IndexedField[] {
  const declared = [
    ...Object.entries(builtinFields),
    ...Object.entries(indexed).map(([key, type]) => [`${dataFieldPrefix}${key}`, type] as const),
  ];
  return declared.map(([field, type]) => ({
    field,
    read: readerOf(field, type),
    sorted: type === "boolean" ? null : new SortedList(),
    equal: notHashed.has(field) ? null : new Map<Scalar, Set<string>>(),
  }));
}

export class ListingIndex {
  private readonly lines = new Map<string, ListedLobby>();
  readonly fields: ReadonlyMap<string, IndexedField>;
  private readonly listeners = new Set<(code: string, line: ListedLobby | null) => void>();
  private readonly narrowedOrders = new NarrowedOrders();

  constructor(readonly indexed: IndexedKeys = {}) {
    this.fields = new Map(fieldsOf(indexed).map((f) => [f.field, f]));
  }

  /** How many public lobbies the index holds. */
  get size(): number {
    return this.lines.size;
  }

  get(code: string): ListedLobby | undefined {
    return this.lines.get(code);
  }

  /** Every line, in no particular order. */
  all(): IterableIterator<ListedLobby> {
    return this.lines.values();
  }

  /** The line of a lobby, new or changed. */
  upsert(line: ListedLobby): void {
    const before = this.lines.get(line.code);
    if (before !== undefined) this.unindex(before);
    this.lines.set(line.code, line);
    this.narrowedOrders.add(line);
    for (const f of this.fields.values()) {
      const value = f.read(line);
      if (value === null) continue;
      f.sorted?.insert({ value, code: line.code, line });
      if (f.equal) {
        const codes = f.equal.get(value) ?? new Set<string>();
        codes.add(line.code);
        f.equal.set(value, codes);
      }
    }
    this.changed(line.code, line);
  }

  /** A lobby that is no longer listed. */
  remove(code: string): void {
    const before = this.lines.get(code);
    if (before === undefined) return;
    this.unindex(before);
    this.lines.delete(code);
    this.changed(code, null);
  }

  /** Forgets every line (before a replay of the bucket). */
  clear(): void {
    for (const code of [...this.lines.keys()]) this.remove(code);
    this.narrowedOrders.clear();
  }

  /** How many narrowed orders the index keeps now (narrowed-order.ts). */
  get narrowedCount(): number {
    return this.narrowedOrders.count;
  }

  /** The narrowed order of `pins` by `order`, filled from the smallest pin's lines on first use. */
  narrowed(pins: readonly Pinned[], order: IndexedField): NarrowedOrder {
    const key = narrowedKey(pins, order.field);
    const make = (): NarrowedOrder => {
      const made = new NarrowedOrder(key, pins, order.read);
      let smallest: ReadonlySet<string>[] = [];
      let fewest = Infinity;
      for (const pin of pins) {
        const equal = this.fields.get(pin.field)?.equal;
        const sets = [...pin.values].flatMap((v) => equal?.get(v) ?? []);
        const count = sets.reduce((n, codes) => n + codes.size, 0);
        if (count < fewest) [smallest, fewest] = [sets, count];
      }
      // A line holds one value of a field: the sets of one pin's values never share a code.
      made.fill(smallest.flatMap((codes) => [...this.linesOf(codes)]));
      return made;
    };
    return this.narrowedOrders.get(key, make, this.lines.size);
  }

  private *linesOf(codes: ReadonlySet<string>): Generator<ListedLobby> {
    for (const code of codes) {
      const line = this.lines.get(code);
      if (line) yield line;
    }
  }

  /** Runs a checked query (query-check.ts). */
  query(query: Query): QueryPage {
    return runQuery(this, query);
  }

  /** Calls `listener` after each change (the bench measures how soon a change arrives). */
  onChange(listener: (code: string, line: ListedLobby | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private unindex(line: ListedLobby): void {
    this.narrowedOrders.remove(line);
    for (const f of this.fields.values()) {
      const value = f.read(line);
      if (value === null) continue;
      f.sorted?.remove(value, line.code);
      const codes = f.equal?.get(value);
      if (codes) {
        codes.delete(line.code);
        if (codes.size === 0) f.equal?.delete(value);
      }
    }
  }

  private changed(code: string, line: ListedLobby | null): void {
    for (const listener of this.listeners) listener(code, line);
  }
}
