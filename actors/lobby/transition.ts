import type { ActorContext, Effect, Transition } from "../runtime/index.ts";
import type { ErrorCode } from "../runtime/index.ts";
import type { LobbyOptions } from "./lobby-options.ts";

/** Small pieces every lobby handler is built from. */

/** What a lobby handler reads besides its state and message. */
export interface LobbyEnv {
  readonly options: LobbyOptions;
  readonly ctx: ActorContext;
}

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

/** The same transition with more effects after its own. */
export function withEffects<S>(transition: Transition<S>, ...effects: Effect[]): Transition<S> {
  return { state: transition.state, effects: [...transition.effects, ...effects] };
}

/** True when the transition closes the actor. */
export function stops<S>(transition: Transition<S>): boolean {
  return transition.effects.some((e) => e.type === "stop");
}
