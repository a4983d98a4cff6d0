import type { Effect, ErrorCode, Transition } from "../runtime/index.ts";

/** Small pieces the matchmaking handlers are built from. */

/** A refusal: the state untouched (same reference, so nothing is persisted) and exactly one reject. */
export function refuse<S>(state: S, code: ErrorCode, message: string): Transition<S> {
  return { state, effects: [{ type: "reject", code, message }] };
}

/** A success answer, with a value when the caller needs one. */
export function reply(value?: unknown): Effect {
  return value === undefined ? { type: "reply" } : { type: "reply", value };
}

/** Runs `next` on the state `first` produced and joins their effects in order. */
export function andThen<S>(first: Transition<S>, next: (state: S) => Transition<S>): Transition<S> {
  const second = next(first.state);
  return { state: second.state, effects: [...first.effects, ...second.effects] };
}

/** True when the transition closes the actor. */
export function stops<S>(transition: Transition<S>): boolean {
  return transition.effects.some((e) => e.type === "stop");
}

/** A push of one frame to some players (none when the list is empty). */
export function pushTo(to: readonly string[], frame: { type: string; [field: string]: unknown }): Effect[] {
  return to.length === 0 ? [] : [{ type: "push", to, frame }];
}
