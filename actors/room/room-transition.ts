import type { ErrorCode } from "../runtime/index.ts";
import type { Effect, Transition } from "../runtime/index.ts";
import type { RoomState } from "./room-state.ts";
import { seatOf } from "./room-state.ts";

/** Small pieces every room handler is built from. */

/** One room transition. */
export type Step = Transition<RoomState>;

/** A refusal: the state untouched (same reference, so nothing is written) and exactly one reject. */
export function refuse(state: RoomState, code: ErrorCode, message: string, retryAfterMs?: number): Step {
  const reject: Effect =
    retryAfterMs === undefined
      ? { type: "reject", code, message }
      : { type: "reject", code, message, retryAfterMs };
  return { state, effects: [reject] };
}

/** A success answer, with a value when the caller needs one. */
export function reply(value?: unknown): Effect {
  return value === undefined ? { type: "reply" } : { type: "reply", value };
}

/** Nothing changes, and the asker hears success (a repeat, a stale report). */
export function unchanged(state: RoomState): Step {
  return { state, effects: [reply()] };
}

/** The same transition with more effects after its own. */
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

/** Runs `next` on the state `first` produced and joins their effects in order. */
export function andThen(first: Step, next: (state: RoomState) => Step): Step {
  const second = next(first.state);
  return { state: second.state, effects: [...first.effects, ...second.effects] };
}
