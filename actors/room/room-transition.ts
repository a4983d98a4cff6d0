import { refuse, reply, type Effect, type Transition } from "../runtime/index.ts";
import type { RoomState } from "./room-state.ts";
import { seatOf } from "./room-state.ts";

/** Small pieces every room handler is built from, besides the runtime's (refuse, reply, andThen). */

/** One room transition. */
export type Step = Transition<RoomState>;

/** Nothing changes, and the asker hears success (a repeat, a stale report). */
export function unchanged(state: RoomState): Step {
  return { state, effects: [reply()] };
}

/**
 * The same transition with more effects after its own. Unlike the runtime's withEffects it keeps the
 * step's other fields, its `volatile` mark too (a volatile turn of the clock or the relay stays one).
 */
export function withEffects(step: Step, ...effects: Effect[]): Step {
  return { ...step, effects: [...step.effects, ...effects] };
}

/** The refusal of a sender without a human seat. */
export function notSeated(state: RoomState, player: string): Step {
  return refuse(state, "NOT_IN_LOBBY", `${player} has no seat in room ${state.code}`);
}

/** Refuses a sender without a human seat; otherwise undefined. */
export function refuseUnseated(state: RoomState, player: string): Step | undefined {
  return seatOf(state, player) === undefined ? notSeated(state, player) : undefined;
}

/** Refuses a message that needs a running match; otherwise undefined. */
export function refuseUnlessPlaying(state: RoomState): Step | undefined {
  return state.phase === "playing"
    ? undefined
    : refuse(state, "NOT_PLAYING", `the match in room ${state.code} has not started`);
}

/** Refuses a sender who is not seated or not the host; otherwise undefined. */
export function refuseUnlessHost(state: RoomState, player: string): Step | undefined {
  const unseated = refuseUnseated(state, player);
  if (unseated) return unseated;
  return state.host === player ? undefined : refuse(state, "NOT_HOST", "only the host may do this");
}
