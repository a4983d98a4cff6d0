import type { FilterRequest } from "../../actors/matchmaking/index.ts";

/** Filters as studio code writes them: functions registered by name in a module the pool's workers load. */

/** What a filter reads (SPEC §3, the seed's filter data): the step, the request's filter JSON, the candidate. */
export type FilterInput = FilterRequest["data"];

/** A filter's answer about one candidate lobby. */
export interface FilterAnswer {
  readonly accept: boolean;
}

/** A filter: synchronous or not, it runs in a worker with a time limit. Throwing rejects the candidate. */
export type MatchFilter = (input: FilterInput) => FilterAnswer | Promise<FilterAnswer>;

/** Filters by the name a lobby type's `filter` gives. */
export type FilterRegistry = Readonly<Record<string, MatchFilter>>;

/** Names a module's filters; the module default-exports the result (`export default defineFilters({…})`). */
export function defineFilters<T extends FilterRegistry>(filters: T): T {
  return filters;
}
