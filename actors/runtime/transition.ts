import type { ErrorCode } from "./error-codes.ts";
import type { Effect, PushFrame, Transition } from "./types.ts";

/**
 * Small pieces every kind's handlers are built from, generic over the kind's state. Helpers that know a
 * kind's state (a room's seat checks, its own `withEffects`) stay with that kind.
 */

/** A refusal: the state untouched (same reference, so nothing is persisted) and exactly one reject. */
export function refuse<S>(state: S, code: ErrorCode, message: string, retryAfterMs?: number): Transition<S> {
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

/** Runs `next` on the state `first` produced and joins their effects in order. (Not named `then`: a module exporting `then` is a thenable to `import()`.) */
export function andThen<S>(first: Transition<S>, next: (state: S) => Transition<S>): Transition<S> {
  const second = next(first.state);
  return { state: second.state, effects: [...first.effects, ...second.effects] };
}

/** The same transition with more effects after its own (and without its `volatile` mark). */
export function withEffects<S>(transition: Transition<S>, ...effects: Effect[]): Transition<S> {
  return { state: transition.state, effects: [...transition.effects, ...effects] };
}

/** True when the transition closes the actor. */
export function stops<S>(transition: Transition<S>): boolean {
  return transition.effects.some((e) => e.type === "stop");
}

/** A push of one frame to some players; no effect when nobody is to receive it. */
export function pushTo(to: readonly string[], frame: PushFrame): Effect[] {
  return to.length === 0 ? [] : [{ type: "push", to, frame }];
}
