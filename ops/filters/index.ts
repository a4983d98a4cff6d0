/** Matchmaking filters: studio functions registered by name, run in a worker pool with a time limit. */
export { filterEndpoint } from "./filter-endpoint.ts";
export { FilterPool, type FilterPoolOptions } from "./filter-pool.ts";
export {
  defineFilters,
  type FilterAnswer,
  type FilterInput,
  type FilterRegistry,
  type MatchFilter,
} from "./filter-registry.ts";
