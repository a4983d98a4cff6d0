import type { ActorContext, Restored, TimerFired, Transition } from "../runtime/index.ts";
import { keyName } from "../lobby/index.ts";
import type { PlayerMessage } from "./player-messages.ts";
import type { CreateRecord, PlayerState } from "./player-state.ts";
import { createMemoryMs, maxRememberedCreates } from "./player-state.ts";

/** The player registry's transition function. */

type Step = Transition<PlayerState>;
type CreateRequest = Extract<PlayerMessage, { type: "beginCreate" | "replaceCreate" }>;

/** A player is in one lobby at a time: joining another tells the old one the player leaves it. */
function joined(state: PlayerState, lobby: string, ctx: ActorContext): Step {
  if (state.lobby === lobby) return { state, effects: [{ type: "reply" }] };
  const next: PlayerState = { ...state, lobby };
  if (state.lobby === null) return { state: next, effects: [{ type: "reply" }] };
  const leave = { type: "leave", player: keyName(ctx.key) };
  return { state: next, effects: [{ type: "tell", to: state.lobby, message: leave }, { type: "reply" }] };
}

function left(state: PlayerState, lobby: string): Step {
  // A late `left` from a lobby the player already moved on from must not clear the new one.
  if (state.lobby !== lobby) return { state, effects: [{ type: "reply" }] };
  return { state: { ...state, lobby: null }, effects: [{ type: "reply" }] };
}

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

/** Handles one player-registry message. */
export function handlePlayer(
  state: PlayerState,
  message: PlayerMessage | TimerFired | Restored,
  ctx: ActorContext,
): Step {
  switch (message.type) {
    case "joined":
      return joined(state, message.lobby, ctx);
    case "left":
      return left(state, message.lobby);
    case "get":
      return { state, effects: [{ type: "reply", value: { lobby: state.lobby } }] };
    case "beginCreate":
      return beginCreate(state, message, ctx.now);
    case "replaceCreate":
      return replaceCreate(state, message, ctx.now);
    case "timer":
    case "restored":
      // The registry arms no timers and has no sessions to re-check.
      return { state, effects: [] };
  }
}
