import type { ActorContext, Effect, Restored, TimerFired, Transition } from "../runtime/index.ts";
import { keyName } from "../common/index.ts";
import type { PlayerMessage } from "./player-messages.ts";
import type { CreateRecord, PlayerState } from "./player-state.ts";
import { createMemoryMs, leaveRetryMs, maxLeaveTries, maxRememberedCreates } from "./player-state.ts";

/** The player registry's transition function. */

type Step = Transition<PlayerState>;
type CreateRequest = Extract<PlayerMessage, { type: "beginCreate" | "replaceCreate" }>;

const driveLeavesTimer = "driveLeaves";

function leaveOf(lobby: string, ctx: ActorContext): Effect {
  return { type: "tell", to: lobby, message: { type: "leave", player: keyName(ctx.key) } };
}

function driveLater(ctx: ActorContext): Effect {
  return { type: "timer", name: driveLeavesTimer, at: ctx.now + leaveRetryMs, kind: "game" };
}

/**
 * A player is in one lobby at a time: joining another tells the old one the player leaves it, and keeps
 * telling it (the intent lives in the snapshot) until it confirms with `left`, so a lobby whose node died
 * before the tell arrived still lets the player go once a survivor serves it.
 */
function joined(state: PlayerState, lobby: string, ctx: ActorContext): Step {
  // Back in a lobby it was leaving: that leave is over.
  const leaving = state.leaving.filter((l) => l.lobby !== lobby);
  if (state.lobby === lobby) {
    if (leaving.length === state.leaving.length) return { state, effects: [{ type: "reply" }] };
    return { state: { ...state, leaving }, effects: [{ type: "reply" }] };
  }
  if (state.lobby === null) return { state: { ...state, lobby, leaving }, effects: [{ type: "reply" }] };
  const old = state.lobby;
  const next: PlayerState = {
    ...state,
    lobby,
    leaving: [...leaving.filter((l) => l.lobby !== old), { lobby: old, tries: 1 }],
  };
  return { state: next, effects: [leaveOf(old, ctx), driveLater(ctx), { type: "reply" }] };
}

function left(state: PlayerState, lobby: string): Step {
  const leaving = state.leaving.filter((l) => l.lobby !== lobby);
  // A late `left` from a lobby the player already moved on from must not clear the new one.
  if (state.lobby !== lobby) {
    if (leaving.length === state.leaving.length) return { state, effects: [{ type: "reply" }] };
    return { state: { ...state, leaving }, effects: [{ type: "reply" }] };
  }
  return { state: { ...state, lobby: null, leaving }, effects: [{ type: "reply" }] };
}

/** Tells every unconfirmed old lobby `leave` again; one that never answers is given up on after a while. */
function driveLeaves(state: PlayerState, ctx: ActorContext): Step {
  const leaving = state.leaving
    .filter((l) => l.tries < maxLeaveTries)
    .map((l) => ({ lobby: l.lobby, tries: l.tries + 1 }));
  const effects: Effect[] = leaving.map((l) => leaveOf(l.lobby, ctx));
  if (leaving.length > 0) effects.push(driveLater(ctx));
  return { state: { ...state, leaving }, effects };
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
      return { state, effects: [{ type: "reply", value: { lobby: state.lobby, match: state.match } }] };
    case "matchStarted":
      return { state: { ...state, match: { queue: message.queue, room: message.room } }, effects: [] };
    case "matchEnded":
      // Only the room it names: a late end of an older match must not clear a newer one.
      if (state.match?.room !== message.room) return { state, effects: [] };
      return { state: { ...state, match: null }, effects: [] };
    case "beginCreate":
      return beginCreate(state, message, ctx.now);
    case "replaceCreate":
      return replaceCreate(state, message, ctx.now);
    case "timer":
      return message.name === driveLeavesTimer ? driveLeaves(state, ctx) : { state, effects: [] };
    case "restored":
      // Its pending leaves carry on with the timer, restored from the snapshot.
      return { state, effects: [] };
  }
}
