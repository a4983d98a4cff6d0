import type { LobbyListing } from "../../actors/common/index.ts";
import {
  QueryError,
  dataFieldPrefix,
  type FieldType,
  type Filter,
  type Order,
  type Scalar,
  type SortKey,
} from "../../actors/common/query-language.ts";

/** How a query reads, tests and orders lines, and its cursor. Pure. */

/** A public lobby as the index holds it: its listing without the message type. */
export type ListedLobby = Omit<LobbyListing, "type">;

/** Reads one field of a line: its value, or null when the line lacks it or holds another type. */
export type FieldReader = (line: ListedLobby) => Scalar | null;

/** The reader of `field` (a built-in name or `data.<key>`) for values of `type`. */
export function readerOf(field: string, type: FieldType): FieldReader {
  if (field.startsWith(dataFieldPrefix)) {
    const key = field.slice(dataFieldPrefix.length);
    return (line) => {
      const value = Object.hasOwn(line.data, key) ? line.data[key] : undefined;
      return typeof value === type && value !== undefined ? value : null;
    };
  }
  const name = field as keyof ListedLobby;
  return (line) => {
    const value = line[name];
    return typeof value === type ? (value as Scalar) : null;
  };
}

/** Orders two values of one type: numbers and strings as usual, false before true. */
export function compareScalars(a: Scalar, b: Scalar): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function compareCodes(a: string, b: string): number {
  return a === b ? 0 : a < b ? -1 : 1;
}

/**
 * Compares a line's place in an order with a sort key: by the field's value in the order's direction,
 * then by code (reversed too when descending, so a descending order is the ascending one backwards).
 * Lines that lack the field come after every line that has it, by code, in either direction.
 */
export function compareKeys(a: SortKey, b: SortKey, dir: "asc" | "desc"): number {
  if (a.value === null || b.value === null) {
    if (a.value !== null) return -1;
    if (b.value !== null) return 1;
    return compareCodes(a.code, b.code);
  }
  const c = compareScalars(a.value, b.value) || compareCodes(a.code, b.code);
  return dir === "asc" ? c : -c;
}

/** The comparator of an order over lines. */
export function lineComparator(order: Order): (a: ListedLobby, b: ListedLobby) => number {
  const read = readerOf(order.field, order.type);
  return (a, b) => compareKeys({ value: read(a), code: a.code }, { value: read(b), code: b.code }, order.dir);
}

/** A line's sort key in an order. */
export function sortKeyOf(line: ListedLobby, order: Order): SortKey {
  return { value: readerOf(order.field, order.type)(line), code: line.code };
}

function testOf(filter: Filter): (value: Scalar) => boolean {
  const [first = ""] = filter.values;
  switch (filter.op) {
    case "eq":
      return (v) => v === first;
    case "ne":
      return (v) => v !== first;
    case "lt":
      return (v) => v < first;
    case "le":
      return (v) => v <= first;
    case "gt":
      return (v) => v > first;
    case "ge":
      return (v) => v >= first;
    case "in": {
      const set = new Set(filter.values);
      return (v) => set.has(v);
    }
    case "contains": {
      const needle = String(first).toLowerCase();
      return (v) => String(v).toLowerCase().includes(needle);
    }
  }
}

/**
 * The test of one filter over lines. A line that lacks the field (or holds a value of another type)
 * matches only `ne`: it is not equal to anything.
 */
export function filterTest(filter: Filter): (line: ListedLobby) => boolean {
  const read = readerOf(filter.field, filter.type);
  const test = testOf(filter);
  const missing = filter.op === "ne";
  return (line) => {
    const value = read(line);
    return value === null ? missing : test(value);
  };
}

/** The test of several filters, ANDed. */
export function filtersTest(filters: readonly Filter[]): (line: ListedLobby) => boolean {
  const tests = filters.map(filterTest);
  return (line) => tests.every((test) => test(line));
}

/** The cursor after `key` in `order`: opaque to clients (base64url of the order and the key). */
export function encodeCursor(key: SortKey, order: Order): string {
  return Buffer.from(JSON.stringify([order.field, order.dir, key.value, key.code])).toString("base64url");
}

const codePattern = /^[A-Z0-9]{1,16}$/;

function isScalarOrNull(value: unknown): value is Scalar | null {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** Reads a cursor of `order`; a cursor of another order, or no cursor at all, is a QueryError. */
export function decodeCursor(raw: string, order: Order): SortKey {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== 4)
    throw new QueryError("the cursor is not one a query gave");
  const [field, dir, value, code] = parsed as unknown[];
  if (field !== order.field || dir !== order.dir) {
    throw new QueryError("the cursor belongs to a query with another order");
  }
  if (!isScalarOrNull(value) || typeof code !== "string" || !codePattern.test(code)) {
    throw new QueryError("the cursor is not one a query gave");
  }
  return { value, code };
}
