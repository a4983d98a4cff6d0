import type { Filter, Query, Scalar, SortKey } from "../../actors/common/query-language.ts";
import {
  compareKeys,
  encodeCursor,
  filtersTest,
  lineComparator,
  sortKeyOf,
  type FieldReader,
  type ListedLobby,
} from "./query-order.ts";
import type { NarrowedOrder, Pinned } from "./narrowed-order.ts";
import type { SortedList } from "./sorted-list.ts";

/**
 * How a query runs over the index, visiting as few lines as it can. Two ways, the cheaper one taken:
 *
 * - **by equality**: the lines an `eq` / `in` filter names are read from that field's value table, tested
 *   and sorted — when the most selective such filter names few lines;
 * - **by walking the order**: the order field's sorted list is walked from the cursor (or from a range
 *   filter's bound on that field), testing each line, until the page is full or a bound is passed. When
 *   the query has `eq` / `in` filters, the walk is of a narrowed order (narrowed-order.ts): only the
 *   lines that hold those values, so lines that fail them cost nothing however they cluster in the order.
 *
 * Pure.
 */

/** One indexed field: how to read it, and its structures. */
export interface IndexedField {
  readonly field: string;
  readonly read: FieldReader;
  /** Lines with a value for the field, by (value, code); none for booleans. */
  readonly sorted: SortedList | null;
  /** Value → codes; none for `code` and `createdAt` (unique enough to test by walking). */
  readonly equal: Map<Scalar, Set<string>> | null;
}

/** What a query reads of the index. */
export interface IndexView {
  readonly size: number;
  readonly fields: ReadonlyMap<string, IndexedField>;
  get(code: string): ListedLobby | undefined;
  all(): Iterable<ListedLobby>;
  /** The narrowed order of these pinned values by `order` (made on first use); none: walk the whole order. */
  narrowed?(pins: readonly Pinned[], order: IndexedField): NarrowedOrder;
}

/** One page of a query: the lines, and the cursor of the next page (null on the last one). */
export interface QueryPage {
  readonly lobbies: ListedLobby[];
  readonly cursor: string | null;
  /** How many lines the plan looked at to answer (the cost of the query; benches and tests read it). */
  readonly visited: number;
}

/** The codes an equality filter names, from its field's value table; null when it has none. */
function namedBy(view: IndexView, filter: Filter): Set<string>[] | null {
  if (filter.op !== "eq" && filter.op !== "in") return null;
  const equal = view.fields.get(filter.field)?.equal;
  if (!equal) return null;
  return filter.values.flatMap((v) => {
    const codes = equal.get(v);
    return codes ? [codes] : [];
  });
}

interface Named {
  readonly sets: Set<string>[];
  readonly count: number;
}

/** The most selective equality filter's codes, and every equality filter's selectivity, multiplied. */
function bestNamed(view: IndexView, filters: readonly Filter[]): { best: Named | null; share: number } {
  let best: Named | null = null;
  let share = 1;
  for (const filter of filters) {
    const sets = namedBy(view, filter);
    if (sets === null) continue;
    const count = sets.reduce((n, s) => n + s.size, 0);
    share *= view.size === 0 ? 0 : count / view.size;
    if (best === null || count < best.count) best = { sets, count };
  }
  return { best, share };
}

function pageOf(lines: ListedLobby[], query: Query, visited: number): QueryPage {
  if (lines.length <= query.limit) return { lobbies: lines, cursor: null, visited };
  const lobbies = lines.slice(0, query.limit);
  const last = lobbies[lobbies.length - 1];
  const cursor = last ? encodeCursor(sortKeyOf(last, query.order), query.order) : null;
  return { lobbies, cursor, visited };
}

/** Tests and sorts the given lines, and keeps those after the cursor. */
function byCandidates(candidates: Iterable<ListedLobby>, query: Query): QueryPage {
  const test = filtersTest(query.filters);
  const after = query.after;
  const read = sortKeyOf;
  const lines: ListedLobby[] = [];
  let visited = 0;
  for (const line of candidates) {
    visited += 1;
    if (!test(line)) continue;
    if (after !== null && compareKeys(read(line, query.order), after, query.order.dir) <= 0) continue;
    lines.push(line);
  }
  lines.sort(lineComparator(query.order));
  return pageOf(lines.slice(0, query.limit + 1), query, visited);
}

function* linesOf(view: IndexView, sets: Set<string>[]): Generator<ListedLobby> {
  const seen = sets.length > 1 ? new Set<string>() : null;
  for (const set of sets) {
    for (const code of set) {
      if (seen) {
        if (seen.has(code)) continue;
        seen.add(code);
      }
      const line = view.get(code);
      if (line) yield line;
    }
  }
}

/** Past these codes no code sorts: a bound key with one of them lies before or after every line of its value. */
const beforeEveryCode = "";
const afterEveryCode = "~";

/** Where a walk of the order may start and must stop, from the range filters on the order's field. */
function boundsOf(query: Query): { start: SortKey | null; stop: (value: Scalar) => boolean } {
  const desc = query.order.dir === "desc";
  let start = query.after;
  const stops: ((value: Scalar) => boolean)[] = [];
  const later = (key: SortKey): void => {
    if (start === null || compareKeys(key, start, query.order.dir) > 0) start = key;
  };
  for (const f of query.filters) {
    const x = f.values[0];
    if (f.field !== query.order.field || x === undefined) continue;
    const low = f.op === "ge" || f.op === "eq" ? beforeEveryCode : f.op === "gt" ? afterEveryCode : null;
    const high = f.op === "le" || f.op === "eq" ? afterEveryCode : f.op === "lt" ? beforeEveryCode : null;
    if (!desc && low !== null) later({ value: x, code: low });
    if (desc && high !== null) later({ value: x, code: high });
    if (!desc && high !== null) stops.push(high === afterEveryCode ? (v) => v > x : (v) => v >= x);
    if (desc && low !== null) stops.push(low === beforeEveryCode ? (v) => v < x : (v) => v <= x);
  }
  return { start, stop: (value) => stops.some((s) => s(value)) };
}

/** Walks a sorted list of the order from the cursor (or a bound), keeping lines that pass `test`. */
function walkSorted(
  sorted: SortedList,
  test: (line: ListedLobby) => boolean,
  query: Query,
): { lines: ListedLobby[]; visited: number } {
  const want = query.limit + 1;
  const lines: ListedLobby[] = [];
  let visited = 0;
  const { start, stop } = boundsOf(query);
  if (start?.value !== null) {
    sorted.walk(start, query.order.dir === "desc", (entry) => {
      visited += 1;
      if (stop(entry.value)) return false;
      if (test(entry.line)) lines.push(entry.line);
      return lines.length < want;
    });
  }
  return { lines, visited };
}

/** Lines lacking the order's field come last; none of them passes a filter on that field but `ne`. */
function missingMayPass(query: Query): boolean {
  return !query.filters.some((f) => f.field === query.order.field && f.op !== "ne");
}

/** Walks the order field's sorted list, then (when the field may be missing) the lines that lack it. */
function byWalk(view: IndexView, order: IndexedField & { sorted: SortedList }, query: Query): QueryPage {
  const sorted = order.sorted;
  const test = filtersTest(query.filters);
  const want = query.limit + 1;
  const walked = walkSorted(sorted, test, query);
  const lines = walked.lines;
  let visited = walked.visited;
  const missing = view.size - sorted.size;
  const byCode = view.fields.get("code")?.sorted;
  if (lines.length < want && missing > 0 && missingMayPass(query) && byCode) {
    const after = query.after?.value === null ? { value: query.after.code, code: query.after.code } : null;
    byCode.walk(after, false, (entry) => {
      visited += 1;
      if (order.read(entry.line) === null && test(entry.line)) lines.push(entry.line);
      return lines.length < want;
    });
  }
  return pageOf(lines, query, visited);
}

/** The `eq` and `in` filters on fields with a value table (one per field): what a narrowed order pins. */
function pinsOf(view: IndexView, filters: readonly Filter[]): { pins: Pinned[]; rest: Filter[] } {
  const pins: Pinned[] = [];
  const rest: Filter[] = [];
  for (const f of filters) {
    const field = view.fields.get(f.field);
    const known = pins.some((p) => p.field === f.field);
    if ((f.op === "eq" || f.op === "in") && !known && field?.equal) {
      pins.push({ field: f.field, read: field.read, values: new Set(f.values) });
    } else rest.push(f);
  }
  return { pins, rest };
}

/** Walks a narrowed order (the lines that hold the query's pinned values), then its lines lacking the field. */
function byNarrowed(narrowed: NarrowedOrder, rest: readonly Filter[], query: Query): QueryPage {
  const test = filtersTest(rest);
  const { lines, visited } = walkSorted(narrowed.sorted, test, query);
  if (lines.length <= query.limit && narrowed.missing.size > 0 && missingMayPass(query)) {
    const from = query.after?.value === null ? query.after.code : null;
    const tail = [...narrowed.missing.values()]
      .filter((l) => (from === null || l.code > from) && test(l))
      .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    lines.push(...tail.slice(0, query.limit + 1 - lines.length));
    return pageOf(lines, query, visited + narrowed.missing.size);
  }
  return pageOf(lines, query, visited);
}

/**
 * Up to this many candidates, the lines of the most selective equality filter are tested and sorted;
 * past it a query with `eq` or `in` filters walks their narrowed order.
 */
const narrowAbove = 256;

/** Runs a checked query over the index. */
export function runQuery(view: IndexView, query: Query): QueryPage {
  const order = view.fields.get(query.order.field);
  const sorted = order?.sorted ?? null;
  const { best, share } = bestNamed(view, query.filters);
  // A walk visits about a page's worth of lines divided by the share that passes the filters.
  const walkCost = share === 0 ? 0 : (query.limit + 1) / share;
  if (best !== null && (sorted === null || best.count <= narrowAbove)) {
    return byCandidates(linesOf(view, best.sets), query);
  }
  if (order === undefined || sorted === null) return byCandidates(view.all(), query);
  const { pins, rest } = pinsOf(view, query.filters);
  if (pins.length > 0 && view.narrowed) {
    return byNarrowed(view.narrowed(pins, order), rest, query);
  }
  if (best !== null && best.count <= walkCost) return byCandidates(linesOf(view, best.sets), query);
  return byWalk(view, { ...order, sorted }, query);
}
