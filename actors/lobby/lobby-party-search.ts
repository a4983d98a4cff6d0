import { reply, type Transition } from "../runtime/index.ts";
import { pushState } from "./lobby-frames.ts";
import type { LobbyMessageOf } from "./lobby-messages.ts";
import type { LobbyState } from "./lobby-state.ts";

/**
 * A private lobby shows that its host queued it as one party (SPEC §6): the host's registry, which
 * records the search, tells the lobby when it starts and when it ends (placed, matched, failed,
 * cancelled, or a member left), and the members see it in the `lobby` frame's `searching`.
 */

type Step = Transition<LobbyState>;

/** The host's party search started (or its queue entry became known). */
export function partySearch(state: LobbyState, message: LobbyMessageOf<"partySearch">): Step {
  if (state.host !== message.host) return { state, effects: [reply()] };
  const searching = { lobbyType: message.lobbyType, entry: message.entry };
  if (JSON.stringify(state.searching) === JSON.stringify(searching)) return { state, effects: [reply()] };
  const next = { ...state, searching };
  return { state: next, effects: [pushState(next), reply()] };
}

/** The party search ended: only the one it names (a late end never clears a later search). */
export function partySearchEnded(state: LobbyState, message: LobbyMessageOf<"partySearchEnded">): Step {
  const current = state.searching;
  const same =
    current !== null &&
    current.lobbyType === message.lobbyType &&
    (message.entry === null || current.entry === null || current.entry === message.entry);
  if (!same) return { state, effects: [reply()] };
  const next = { ...state, searching: null };
  return { state: next, effects: [pushState(next), reply()] };
}
