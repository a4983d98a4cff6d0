import type { Effect } from "../runtime/index.ts";
import type { QueueEnv, QueueStep } from "./queue-options.ts";
import { proposeAmong, searchOrder, takeOut } from "./queue-match.ts";
import { miss } from "./queue-search.ts";
import type { QueueMatch, QueueState } from "./queue-state.ts";
import { admitter } from "./step-algorithm.ts";

/**
 * One step of a `queueAccept` queue, searching every waiting entry once in search order — the same
 * outcome as calling `matchEntry` entry by entry on the whole state, without its cost: that copies the
 * entry list for every take-out and miss and scans all of it for every seeker, so a step was quadratic
 * in the waiting entries (docs/results.md, the matchmaking bench). Here the entries live in a map the
 * step changes in place, each seeker looks only at the entries inside its rating window (an index by
 * rating; a `compound` algorithm's window depends on the candidate's region, so it still scans them all),
 * and the state is put together once at the end, in the entries' arrival order.
 */
export function runMatchStep(state: QueueState, env: QueueEnv): { state: QueueState; effects: Effect[] } {
  const current = new Map(state.entries.map((e) => [e.id, e]));
  // Ratings never change, and an entry that stops waiting never waits again within a step.
  const byRating = state.entries
    .filter((e) => e.stage.status === "waiting")
    .sort((a, b) => a.rating - b.rating);
  const ratings = byRating.map((e) => e.rating);
  const effects: Effect[] = [];
  const matches: QueueMatch[] = [...state.matches];
  let nextMatch = state.nextMatch;
  for (const { id } of searchOrder(state.entries)) {
    const seeker = current.get(id);
    if (seeker?.stage.status !== "waiting") continue;
    const bounds = admitter(seeker.algorithm, seeker.step, seeker).bounds;
    const slice =
      bounds === undefined
        ? byRating
        : byRating.slice(firstAtLeast(ratings, bounds.min), firstAbove(ratings, bounds.max));
    const nearby = slice.map((e) => current.get(e.id)).filter((e) => e !== undefined);
    const proposal = proposeAmong(nearby, seeker, env);
    // Each step function runs on a state holding only the entries it touches, so it costs nothing more.
    const taken =
      proposal === undefined
        ? undefined
        : takeOut(
            {
              ...state,
              entries: proposal.entries.map((e) => current.get(e)).filter((e) => e !== undefined),
              matches: [],
              nextMatch,
            },
            proposal,
            env,
          );
    const done: QueueStep = taken ?? miss({ ...state, entries: [seeker] }, seeker, env);
    if (taken !== undefined) {
      matches.push(...taken.state.matches);
      nextMatch = taken.state.nextMatch;
    } else current.delete(seeker.id); // a miss hands the entry back (a step later), or drops it (JOIN_FAIL)
    for (const entry of done.state.entries) current.set(entry.id, entry);
    effects.push(...done.effects);
  }
  const entries = state.entries.flatMap((e) => {
    const now = current.get(e.id);
    return now === undefined ? [] : [now];
  });
  return { state: { ...state, entries, matches, nextMatch }, effects };
}

/** The first index whose rating is at least `min` (ratings sorted ascending). */
function firstAtLeast(ratings: readonly number[], min: number): number {
  let lo = 0;
  let hi = ratings.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ratings[mid] ?? 0) < min) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose rating is above `max`. */
function firstAbove(ratings: readonly number[], max: number): number {
  let lo = 0;
  let hi = ratings.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ratings[mid] ?? 0) <= max) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
