import {
  defaultQueryLimit,
  fieldTypeOf,
  filterOps,
  type FieldType,
  type FilterOp,
  type IndexedKeys,
  QueryError,
  type Filter,
  type Order,
  type Query,
  type QueryInput,
  type Scalar,
} from "../../actors/common/query-language.ts";
import { decodeCursor } from "./query-order.ts";

/** A query checked against a node's index: every field known, every value of its field's type. Pure. */

const rangeOps: ReadonlySet<FilterOp> = new Set(["lt", "le", "gt", "ge"]);

function isOp(op: string): op is FilterOp {
  return (filterOps as readonly string[]).includes(op);
}

function typed(value: unknown, type: FieldType, what: string): Scalar {
  if (typeof value !== type || (type === "number" && !Number.isFinite(value))) {
    throw new QueryError(`${what} needs a ${type} value`);
  }
  return value as Scalar;
}

function knownField(field: string, indexed: IndexedKeys): FieldType {
  const type = fieldTypeOf(field, indexed);
  if (type !== undefined) return type;
  throw new QueryError(
    field.startsWith("data.")
      ? `${field} is not indexed on this node (--lobby-index names the data keys queries may use)`
      : `unknown field ${field}: a built-in field or data.<key>`,
  );
}

/** Checks one filter: the field is known, the operator fits its type, the value is of that type. */
export function checkFilter(
  input: { field: string; op: string; value: Scalar | readonly Scalar[] },
  indexed: IndexedKeys,
): Filter {
  const type = knownField(input.field, indexed);
  const what = `${input.field} ${input.op}`;
  if (!isOp(input.op)) throw new QueryError(`unknown operator ${input.op}: one of ${filterOps.join(" ")}`);
  const op = input.op;
  if (op === "contains" && type !== "string") throw new QueryError(`${what}: contains needs a string field`);
  if (rangeOps.has(op) && type === "boolean") throw new QueryError(`${what}: a boolean has no order`);
  if (op === "in") {
    if (!Array.isArray(input.value) || input.value.length === 0) {
      throw new QueryError(`${what} needs a non-empty list of values`);
    }
    return { field: input.field, type, op, values: input.value.map((v) => typed(v, type, what)) };
  }
  if (Array.isArray(input.value)) throw new QueryError(`${what} takes one value, not a list`);
  return { field: input.field, type, op, values: [typed(input.value, type, what)] };
}

/** Checks a whole query; throws QueryError naming the first thing wrong. */
export function checkQuery(input: QueryInput, indexed: IndexedKeys): Query {
  const filters = (input.filters ?? []).map((f) => checkFilter(f, indexed));
  const field = input.order?.field ?? "code";
  const order: Order = { field, type: knownField(field, indexed), dir: input.order?.dir ?? "asc" };
  const after = input.cursor === undefined ? null : decodeCursor(input.cursor, order);
  if (after !== null && after.value !== null) typed(after.value, order.type, "the cursor");
  return { filters, order, limit: input.limit ?? defaultQueryLimit, after };
}
