import { reply, type ActorContext, type Transition } from "../runtime/index.ts";
import { depart } from "./player-departures.ts";
import type { PlayerState } from "./player-state.ts";
import type { SearchRecord } from "./whereabouts.ts";

/**
 * The queue placed the player's search in a matched lobby (`findLobby`, `findOrCreateLobby`; a party's
 * members each hear it). The registry records the lobby, so the rule sees it — unless the player gave
 * that search up meanwhile (it went to another lobby or search while the queue was already sending its
 * group): a queue cannot call back a group it sent, so the registry takes the player out of the matched
 * lobby again, and the player ends up in the place it chose, never in two.
 */

type Step = Transition<PlayerState>;

/** What a queue tells a placed player's registry. */
export interface Placement {
  readonly queue: string;
  readonly entry: string;
  readonly lobby: string;
  /** The search was a party's: its members keep their private lobby beside the matched one. */
  readonly party: boolean;
}

function isSearch(search: SearchRecord, placement: Placement): boolean {
  return search.queue === placement.queue && (search.entry === null || search.entry === placement.entry);
}

/** Whether the player is being taken out of the placed search (a departure under way, or about to start). */
function givenUp(state: PlayerState, placement: Placement): boolean {
  const leaving = state.leaving.some((l) => "search" in l && isSearch(l.search, placement));
  const intent = state.entering?.leave.some((d) => "search" in d && isSearch(d.search, placement)) ?? false;
  return leaving || intent;
}

/** The queue's `placed`: recorded as where the player is, or left again when the search was given up. */
export function placed(state: PlayerState, placement: Placement, ctx: ActorContext): Step {
  const { lobby } = placement;
  if (state.lobby === lobby || state.matched === lobby) return { state, effects: [reply()] };
  if (givenUp(state, placement)) {
    const step = depart(state, [{ lobby }], ctx);
    return { state: step.state, effects: [...step.effects, reply()] };
  }
  const search = state.search !== null && isSearch(state.search, placement) ? null : state.search;
  // A party keeps its private lobby (its members come back to it); a search alone is in the matched lobby.
  const inParty = placement.party;
  const next: PlayerState = inParty ? { ...state, search, matched: lobby } : { ...state, search, lobby };
  // A search alone left its lobby when it was made; one the player is in still is left now.
  const old = !inParty && state.lobby !== null ? [{ lobby: state.lobby }] : [];
  const step = depart(next, old, ctx);
  return { state: step.state, effects: [...step.effects, reply()] };
}
