import { keyName } from "../common/index.ts";
import type { ActorContext, Effect, Transition } from "../runtime/index.ts";
import type { PlayerState } from "./player-state.ts";
import type { SearchRecord } from "./whereabouts.ts";

/**
 * A private lobby shows that its party searches (SPEC §6). The host's registry is where the party's
 * search is recorded — made, given its queue entry, ended however it ends — so after every change of it
 * the host's registry tells the lobby: `partySearch` when it starts (or learns its entry),
 * `partySearchEnded` when it is over.
 */

/** The party search this registry's player hosts, or null. */
function hosted(state: PlayerState, self: string): SearchRecord | null {
  const search = state.search;
  return search?.party?.host === self ? search : null;
}

function same(a: SearchRecord | null, b: SearchRecord | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The step, with what the host's lobby is told of a change of the party search. */
export function withPartyLobbyNews(
  before: PlayerState,
  step: Transition<PlayerState>,
  ctx: ActorContext,
): Transition<PlayerState> {
  if (step.state.search === before.search) return step;
  const self = keyName(ctx.key);
  const was = hosted(before, self);
  const now = hosted(step.state, self);
  if (same(was, now)) return step;
  const news: Effect[] = [];
  if (was?.party && (now === null || now.party?.lobby !== was.party.lobby || now.queue !== was.queue)) {
    const message = { type: "partySearchEnded", lobbyType: keyName(was.queue), entry: was.entry };
    news.push({ type: "tell", to: was.party.lobby, message });
  }
  if (now?.party) {
    const message = { type: "partySearch", host: self, lobbyType: keyName(now.queue), entry: now.entry };
    news.push({ type: "tell", to: now.party.lobby, message });
  }
  return { ...step, effects: [...step.effects, ...news] };
}
