import type { Effect, Transition } from "../runtime/index.ts";
import type { LobbyState } from "./lobby-state.ts";

/**
 * The lobby's `version`: one more with every change, whichever message made it, so a client that names
 * the version it saw (`ifVersion`) is refused when anything changed since. A handler that answers the
 * new version (a data or door change) sets it itself; for every other change it is set here, on the
 * state and on the lobby frames the change pushes. A volatile change (a chat line's rate bookkeeping) is
 * no change of the lobby and keeps its version.
 */
export function stampVersion(before: LobbyState, step: Transition<LobbyState>): Transition<LobbyState> {
  const after = step.state;
  if (after === before || step.volatile === true || after.version !== before.version) return step;
  const version = before.version + 1;
  const effects = step.effects.map((effect): Effect => {
    if (effect.type !== "push" || effect.frame.type !== "lobby") return effect;
    return { ...effect, frame: { ...effect.frame, version } };
  });
  return { ...step, state: { ...after, version }, effects };
}
