import { defineFilters } from "../../ops/filters/index.ts";

/** Filters a studio might write, and ones that misbehave: the pool's tests load this module in workers. */
export default defineFilters({
  /** The seed's kind of filter: the candidate's `settings.level` must not pass the request's `maxLevel`. */
  levels: ({ filter, matchCandidate }) => {
    const settings = matchCandidate.settings as { level?: number } | undefined;
    const maxLevel = typeof filter.maxLevel === "number" ? filter.maxLevel : Infinity;
    return { accept: (settings?.level ?? 0) <= maxLevel };
  },
  throws: () => {
    throw new Error("studio bug");
  },
  exits: () => {
    process.exit(3);
  },
  loops: () => {
    for (;;) {
      // A synchronous loop: only terminating the worker ends it.
    }
  },
});
