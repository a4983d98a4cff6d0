/**
 * Queries over the public lobbies of the whole fleet: the query language, its checks, and each node's
 * in-memory index of the `listings` bucket (docs/lobbies-query.md).
 */
export {
  builtinFields,
  dataFieldPrefix,
  defaultQueryLimit,
  fieldTypeOf,
  filterOps,
  maxFilters,
  maxInValues,
  maxQueryLimit,
  parseIndexedKeys,
  queryFieldsSchema,
  queryFilterSchema,
  queryOrderSchema,
  QueryError,
} from "../../actors/common/query-language.ts";
export type {
  BuiltinField,
  FieldType,
  Filter,
  FilterOp,
  IndexedKeys,
  Order,
  Query,
  QueryFilterInput,
  QueryInput,
  Scalar,
  SortKey,
} from "../../actors/common/query-language.ts";
export { checkFilter, checkQuery } from "./query-check.ts";
export { compareKeys, decodeCursor, encodeCursor, filtersTest, lineComparator } from "./query-order.ts";
export type { ListedLobby } from "./query-order.ts";
export { SortedList } from "./sorted-list.ts";
export { ListingIndex } from "./listing-index.ts";
export type { QueryPage } from "./query-plan.ts";
export { ListingWriter } from "./listing-writer.ts";
export type { ListingWriterOptions } from "./listing-writer.ts";
export { feedIndex, tapListings } from "./listing-feed.ts";
export { decodeListingRecord, encodeListingRecord } from "./listing-record.ts";
export type { ListingRecord } from "./listing-record.ts";
