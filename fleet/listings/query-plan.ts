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
import type { SortedList } from "./sorted-list.ts";

/**
 * How a query runs over the index, visiting as few lines as it can. Two ways, the cheaper one taken:
 *
 * - **by equality**: the lines an `eq` / `in` filter names are read from that field's value table, tested
 *   and sorted — when the most selective such filter names fewer lines than a walk would visit;
 * - **by walking the order**: the order field's sorted list is walked from the cursor (or from a range
 *   filter's bound on that field), testing each line, until the page is full or a bound is passed.
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
}

/** One page of a query: the lines, and the cursor of the next page (null on the last one). */
export interface QueryPage {
  readonly lobbies: ListedLobby[];
  readonly cursor: string | null;
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

function pageOf(lines: ListedLobby[], query: Query): QueryPage {
  if (lines.length <= query.limit) return { lobbies: lines, cursor: null };
  const lobbies = lines.slice(0, query.limit);
  const last = lobbies[lobbies.length - 1];
  return { lobbies, cursor: last ? encodeCursor(sortKeyOf(last, query.order), query.order) : null };
}

/** Tests and sorts the given lines, and keeps those after the cursor. */
function byCandidates(candidates: Iterable<ListedLobby>, query: Query): QueryPage {
  const test = filtersTest(query.filters);
  const after = query.after;
  const read = sortKeyOf;
  const lines: ListedLobby[] = [];
  for (const line of candidates) {
    if (!test(line)) continue;
    if (after !== null && compareKeys(read(line, query.order), after, query.order.dir) <= 0) continue;
    lines.push(line);
  }
  lines.sort(lineComparator(query.order));
  return pageOf(lines.slice(0, query.limit + 1), query);
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

/** Walks the order field's sorted list, then (when the field may be missing) the lines that lack it. */
function byWalk(view: IndexView, order: IndexedField & { sorted: SortedList }, query: Query): QueryPage {
  const sorted = order.sorted;
  const test = filtersTest(query.filters);
  const want = query.limit + 1;
  const lines: ListedLobby[] = [];
  const { start, stop } = boundsOf(query);
  if (start?.value !== null) {
    sorted.walk(start, query.order.dir === "desc", (entry) => {
      if (stop(entry.value)) return false;
      if (test(entry.line)) lines.push(entry.line);
      return lines.length < want;
    });
  }
  // Lines lacking the field come last; none of them passes a filter on that field but `ne`.
  const testsField = query.filters.some((f) => f.field === query.order.field && f.op !== "ne");
  const missing = view.size - sorted.size;
  const byCode = view.fields.get("code")?.sorted;
  if (lines.length < want && missing > 0 && !testsField && byCode) {
    const after = query.after?.value === null ? { value: query.after.code, code: query.after.code } : null;
    byCode.walk(after, false, (entry) => {
      if (order.read(entry.line) === null && test(entry.line)) lines.push(entry.line);
      return lines.length < want;
    });
  }
  return pageOf(lines, query);
}

/** Runs a checked query over the index. */
export function runQuery(view: IndexView, query: Query): QueryPage {
  const order = view.fields.get(query.order.field);
  const sorted = order?.sorted ?? null;
  const { best, share } = bestNamed(view, query.filters);
  // A walk visits about a page's worth of lines divided by the share that passes the filters.
  const walkCost = share === 0 ? 0 : (query.limit + 1) / share;
  if (best !== null && (sorted === null || best.count <= walkCost)) {
    return byCandidates(linesOf(view, best.sets), query);
  }
  if (order === undefined || sorted === null) return byCandidates(view.all(), query);
  return byWalk(view, { ...order, sorted }, query);
}
