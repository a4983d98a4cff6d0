import type { Effect } from "../runtime/index.ts";
import type { StartRules } from "./lobby-type.ts";
import type { Timetable } from "./matched-lobby-state.ts";

/** The matched lobby's timers and its timetable, in one place so arming and dispatch agree. */

/** The timetable's three deadlines, each armed as a game timer of its own name. */
export const timetableTimerNames = ["early", "onTime", "tooLate"] as const;

/** Fires at `acceptBy`: members who have not accepted are removed. */
export const acceptTimerName = "accept";

/** Fires when a start the node could not take is worth trying again. */
export const startRetryTimerName = "startRetry";

/** A round's timetable from the time it began (SPEC §3). */
export function timetableFrom(now: number, rules: StartRules): Timetable {
  return {
    createdAt: now,
    early: now + rules.earliestStartSecs * 1000,
    onTime: now + rules.onTimeStartSecs * 1000,
    tooLate: now + rules.tooLateSecs * 1000,
  };
}

/** Arms the timetable's deadlines as game timers, so a failover never moves them. */
export function armTimetable(timetable: Timetable): Effect[] {
  return timetableTimerNames.map((name) => ({ type: "timer", name, at: timetable[name], kind: "game" }));
}

/** Cancels the timetable's timers (the lobby started or ended). */
export function cancelTimetable(): Effect[] {
  return timetableTimerNames.map((name) => ({ type: "cancelTimer", name }));
}
