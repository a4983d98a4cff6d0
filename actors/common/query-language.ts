import { z } from "zod";

/**
 * The lobby query language: which fields a query may name, its operators, and the wire shape of a
 * query. Pure: the node's index (listing-index.ts) runs what `checkQuery` accepts.
 */

/** A value a filter compares with: what public lobby data holds. */
export type Scalar = string | number | boolean;

/** The type of a field a query may name. */
export type FieldType = "string" | "number" | "boolean";

/** The comparison operators, all ANDed when a query has several filters. */
export const filterOps = ["eq", "ne", "lt", "le", "gt", "ge", "in", "contains"] as const;

/** One operator. */
export type FilterOp = (typeof filterOps)[number];

/** The fields every public lobby's listing has, with their types (`mode` and `map` may be missing). */
export const builtinFields = {
  code: "string",
  mode: "string",
  map: "string",
  freeSeats: "number",
  members: "number",
  maxMembers: "number",
  locked: "boolean",
  hasPassword: "boolean",
  playing: "boolean",
  createdAt: "number",
} as const satisfies Record<string, FieldType>;

/** A built-in field's name. */
export type BuiltinField = keyof typeof builtinFields;

/** A public data key is named `data.<key>` in a query, so it never shadows a built-in field. */
export const dataFieldPrefix = "data.";

/** The most values one `in` filter may list, and the most filters one query may have. */
export const maxInValues = 64;
export const maxFilters = 16;
/** The most lobbies one page holds, and how many it holds when the query does not say. */
export const maxQueryLimit = 100;
export const defaultQueryLimit = 20;

const scalarSchema = z.union([z.string().max(256), z.number(), z.boolean()]);

/** One filter as it arrives: checked against the node's declared index by `checkQuery`. */
export const queryFilterSchema = z.strictObject({
  field: z.string().min(1).max(64),
  op: z.string().min(1).max(16),
  value: z.union([scalarSchema, z.array(scalarSchema).max(maxInValues)]),
});

/** One filter as sent. */
export type QueryFilterInput = z.output<typeof queryFilterSchema>;

/** An order as it arrives. */
export const queryOrderSchema = z.strictObject({
  field: z.string().min(1).max(64),
  dir: z.enum(["asc", "desc"]).optional(),
});

/** The fields of a `queryLobbies` (and the filters of a `quickJoin`). */
export const queryFieldsSchema = {
  filters: z.array(queryFilterSchema).max(maxFilters).optional(),
  order: queryOrderSchema.optional(),
  limit: z.number().int().min(1).max(maxQueryLimit).optional(),
  cursor: z.string().max(1024).optional(),
};

/** A query as sent: filters, an order, a page size and the cursor of the previous page. */
export interface QueryInput {
  readonly filters?: readonly QueryFilterInput[] | undefined;
  readonly order?: { readonly field: string; readonly dir?: "asc" | "desc" | undefined } | undefined;
  readonly limit?: number | undefined;
  readonly cursor?: string | undefined;
}

/** The public data keys a node indexes, each with its type (`--lobby-index key:type,…`). */
export type IndexedKeys = Readonly<Record<string, FieldType>>;

const indexedKeyPattern = /^[A-Za-z0-9_-]{1,32}$/;

/** Reads `key:type[,key:type]` (types string, number, boolean); throws with the bad pair named. */
export function parseIndexedKeys(raw: string): Record<string, FieldType> {
  const keys: Record<string, FieldType> = {};
  for (const pair of raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [key = "", type = ""] = pair.split(":");
    if (!indexedKeyPattern.test(key) || (type !== "string" && type !== "number" && type !== "boolean")) {
      throw new Error(`"${pair}" is not key:string, key:number or key:boolean`);
    }
    keys[key] = type;
  }
  return keys;
}

/** The type of `field` in a query, or undefined when it is neither built in nor an indexed data key. */
export function fieldTypeOf(field: string, indexed: IndexedKeys): FieldType | undefined {
  if (Object.hasOwn(builtinFields, field)) return builtinFields[field as BuiltinField];
  if (!field.startsWith(dataFieldPrefix)) return undefined;
  const key = field.slice(dataFieldPrefix.length);
  return Object.hasOwn(indexed, key) ? indexed[key] : undefined;
}

/** Why a query was refused; nothing was changed (the gateway answers INVALID with this message). */
export class QueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QueryError";
  }
}

/** Where a page ends in its order: the last line's value of the order's field (null: missing) and code. */
export interface SortKey {
  readonly value: Scalar | null;
  readonly code: string;
}

/** One checked filter. `values` holds the one value of every operator but `in`'s list. */
export interface Filter {
  readonly field: string;
  readonly type: FieldType;
  readonly op: FilterOp;
  readonly values: readonly Scalar[];
}

/** A checked order: one field (code by default), ascending or descending. */
export interface Order {
  readonly field: string;
  readonly type: FieldType;
  readonly dir: "asc" | "desc";
}

/** A query the index can run. */
export interface Query {
  readonly filters: readonly Filter[];
  readonly order: Order;
  readonly limit: number;
  /** Where the page starts: after this line in the order. */
  readonly after: SortKey | null;
}
