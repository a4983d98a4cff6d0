import type { ActorContext, Restored, TimerFired, Transition } from "../runtime/index.ts";
import { driveLeavesTimer } from "./player-departures.ts";
import type { PlayerMessage } from "./player-messages.ts";
import {
  drive,
  enter,
  entered,
  enterFailed,
  joined,
  left,
  restoredPlaces,
  searchEnded,
  seatLeft,
} from "./player-places.ts";
import { placed } from "./player-placed.ts";
import { withPartyLobbyNews } from "./party-lobby-news.ts";
import type { CreateRecord, PlayerState } from "./player-state.ts";
import { createMemoryMs, maxRememberedCreates } from "./player-state.ts";

/** The player registry's transition function. */

type Step = Transition<PlayerState>;
type CreateRequest = Extract<PlayerMessage, { type: "beginCreate" | "replaceCreate" }>;

function sameRequest(record: CreateRecord, request: CreateRequest): boolean {
  return record.session === request.session && record.id === request.id;
}

/**
 * The first attempt of a create request records the code drawn for it; a retry of the same request
 * (same session and request id) gets the recorded code, so one request never makes two lobbies.
 */
function beginCreate(state: PlayerState, request: CreateRequest, now: number): Step {
  const recorded = state.creates.find((r) => sameRequest(r, request));
  if (recorded !== undefined) return { state, effects: [{ type: "reply", value: { code: recorded.code } }] };
  const fresh = state.creates.filter((r) => now - r.at < createMemoryMs);
  const record: CreateRecord = { session: request.session, id: request.id, code: request.code, at: now };
  return {
    state: { ...state, creates: [...fresh, record].slice(-maxRememberedCreates) },
    effects: [{ type: "reply", value: { code: request.code } }],
  };
}

/** The drawn code collided with an existing lobby: the request now stands for the new code. */
function replaceCreate(state: PlayerState, request: CreateRequest, now: number): Step {
  const others = state.creates.filter((r) => !sameRequest(r, request) && now - r.at < createMemoryMs);
  const record: CreateRecord = { session: request.session, id: request.id, code: request.code, at: now };
  return {
    state: { ...state, creates: [...others, record].slice(-maxRememberedCreates) },
    effects: [{ type: "reply", value: { code: request.code } }],
  };
}

/** Handles one player-registry message; the host's lobby hears of its party search's changes. */
export function handlePlayer(
  state: PlayerState,
  message: PlayerMessage | TimerFired | Restored,
  ctx: ActorContext,
): Step {
  return withPartyLobbyNews(state, handle(state, message, ctx), ctx);
}

function handle(state: PlayerState, message: PlayerMessage | TimerFired | Restored, ctx: ActorContext): Step {
  switch (message.type) {
    case "joined":
      return joined(state, message.lobby, ctx);
    case "left":
      return left(state, message.lobby, ctx, message.kicked === true);
    case "enter":
      return enter(state, message, ctx);
    case "entered":
      return entered(state, message, ctx);
    case "enterFailed":
      return enterFailed(state, message);
    case "searchEnded":
      return searchEnded(state, message);
    case "placed":
      return placed(state, message, ctx);
    case "seatLeft":
      return seatLeft(state, message.room);
    case "get": {
      const value = { lobby: state.lobby, match: state.match, search: state.search, room: state.room };
      return { state, effects: [{ type: "reply", value }] };
    }
    case "matchStarted": {
      // The match's search is over: the player plays now.
      const search = state.search?.queue === message.queue ? null : state.search;
      const match = { queue: message.queue, room: message.room };
      return { state: { ...state, match, search }, effects: [] };
    }
    case "matchEnded":
      // Only the room it names: a late end of an older match must not clear a newer one.
      if (state.match?.room !== message.room) return { state, effects: [] };
      return { state: { ...state, match: null }, effects: [] };
    case "beginCreate":
      return beginCreate(state, message, ctx.now);
    case "replaceCreate":
      return replaceCreate(state, message, ctx.now);
    case "timer":
      return message.name === driveLeavesTimer ? drive(state, ctx) : { state, effects: [] };
    case "restored":
      return restoredPlaces(state, ctx);
  }
}
