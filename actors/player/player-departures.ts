import type { ActorContext, Effect, Transition } from "../runtime/index.ts";
import { keyName } from "../common/index.ts";
import type { Leaving, PlayerState } from "./player-state.ts";
import { leaveRetryMs, maxLeaveTries } from "./player-state.ts";
import type { Departure, SearchRecord } from "./whereabouts.ts";

/**
 * Carrying out departures (actions across actors): each is recorded in `leaving` first, told at once, and
 * told again on a timer — a lobby until it confirms `left`, a queue a few times (it confirms nothing, and
 * its cancel names the entry, so a repeat never hits a later search) — so a crash of either side between
 * the steps still ends with the player out of the old place.
 */

type Step = Transition<PlayerState>;

/** The registry's one timer: departures to tell again, and an entry intent that may have expired. */
export const driveLeavesTimer = "driveLeaves";

/** Who a queue knows the search by: its requester (for a party, the host). */
function searcher(search: SearchRecord, ctx: ActorContext): string {
  return search.party?.host ?? keyName(ctx.key);
}

/** The tell that carries out one departure. */
function tellOf(leaving: Departure, ctx: ActorContext): Effect {
  if ("lobby" in leaving) {
    return { type: "tell", to: leaving.lobby, message: { type: "leave", player: keyName(ctx.key) } };
  }
  const { search } = leaving;
  const entry = search.entry === null ? {} : { entry: search.entry };
  return {
    type: "tell",
    to: search.queue,
    message: { type: "cancel", player: searcher(search, ctx), ...entry },
  };
}

/** The timer that drives what is pending; set while anything is. */
export function driveLater(ctx: ActorContext): Effect {
  return { type: "timer", name: driveLeavesTimer, at: ctx.now + leaveRetryMs, kind: "game" };
}

/** Whether two departures leave the same place. */
export function samePlace(a: Departure, b: Departure): boolean {
  if ("lobby" in a) return "lobby" in b && a.lobby === b.lobby;
  return "search" in b && a.search.queue === b.search.queue && a.search.entry === b.search.entry;
}

/** `leaving` without the departures from `place` (the player came back to it). */
export function notLeaving(leaving: readonly Leaving[], place: (d: Departure) => boolean): Leaving[] {
  return leaving.filter((l) => !place(l));
}

/** Starts departures: recorded, told now, and driven by the timer. */
export function depart(state: PlayerState, departures: readonly Departure[], ctx: ActorContext): Step {
  const fresh = departures.filter((d, i) => departures.findIndex((o) => samePlace(o, d)) === i);
  if (fresh.length === 0) return { state, effects: [] };
  const kept = state.leaving.filter((l) => !fresh.some((d) => samePlace(l, d)));
  const leaving: Leaving[] = [...kept, ...fresh.map((d) => ({ ...d, tries: 1 }))];
  return { state: { ...state, leaving }, effects: [...fresh.map((d) => tellOf(d, ctx)), driveLater(ctx)] };
}

/** Tells every unconfirmed departure again; one that never answers is given up on after a while. */
export function driveDepartures(state: PlayerState, ctx: ActorContext): Step {
  const leaving = state.leaving
    .filter((l) => l.tries < maxLeaveTries)
    // A cancel that cannot name its entry might hit a later search of the same queue: told once only.
    .filter((l) => !("search" in l) || l.search.entry !== null)
    .map((l) => ({ ...l, tries: l.tries + 1 }));
  const effects: Effect[] = leaving.map((l) => tellOf(l, ctx));
  if (leaving.length > 0 || state.entering !== null) effects.push(driveLater(ctx));
  return { state: { ...state, leaving }, effects };
}
