import { reply, type Restored, type TimerFired } from "../runtime/index.ts";
import { roomKey } from "../common/index.ts";
import { accept, acceptExpired, decline } from "./matched-lobby-accept.ts";
import type { MatchedLobbyMessage, MatchedLobbyMessageOf } from "./matched-lobby-messages.ts";
import { join, leave, setReady } from "./matched-lobby-membership.ts";
import type { LobbyStep, MatchedLobbyEnv } from "./matched-lobby-options.ts";
import type { MatchedLobbyState } from "./matched-lobby-state.ts";
import { nextRound, settle, spawnRoom } from "./matched-lobby-start.ts";
import { acceptTimerName, startRetryTimerName } from "./matched-lobby-timers.ts";

/** The matched lobby's transition function: one message in, the next state and its effects out. */

/** Handles one matched lobby message (already parsed). */
export function handleMatchedLobby(
  state: MatchedLobbyState,
  message: MatchedLobbyMessage | TimerFired | Restored,
  env: MatchedLobbyEnv,
): LobbyStep {
  switch (message.type) {
    case "join":
      return join(state, message, env);
    case "leave":
      return leave(state, message, env);
    case "ready":
      return setReady(state, message, env);
    case "accept":
      return accept(state, message, env);
    case "decline":
      return decline(state, message, env);
    case "roomEnded":
      return roomEnded(state, message, env);
    case "spawnFailed":
      return roomSpawnFailed(state, message, env);
    case "timer":
      return timerFired(state, message.name, env);
    case "restored":
      // Deadlines are absolute game timers; nothing else depends on where the lobby runs.
      return { state, effects: [] };
  }
}

function timerFired(state: MatchedLobbyState, name: string, env: MatchedLobbyEnv): LobbyStep {
  if (name === acceptTimerName) return acceptExpired(state, env);
  if (name === startRetryTimerName) {
    if (state.phase === "starting" && state.accepting === null) return spawnRoom(state, env);
    return { state, effects: [] };
  }
  // early, onTime, tooLate: the rules are decided from the time, whichever fired.
  return settle(state, env);
}

/** The room reports its match is over: a new round begins. A report about another room is stale. */
function roomEnded(
  state: MatchedLobbyState,
  message: MatchedLobbyMessageOf<"roomEnded">,
  env: MatchedLobbyEnv,
): LobbyStep {
  if (state.phase !== "playing" || state.room !== message.room) return { state, effects: [reply()] };
  const next = nextRound(state, env);
  return { state: next.state, effects: [...next.effects, reply()] };
}

/** The room could not be created: nobody played in it, so the start is tried again shortly under a new code. */
function roomSpawnFailed(
  state: MatchedLobbyState,
  message: MatchedLobbyMessageOf<"spawnFailed">,
  env: MatchedLobbyEnv,
): LobbyStep {
  if (state.phase !== "playing" || state.room === null || roomKey(state.room) !== message.key)
    return { state, effects: [] };
  const next: MatchedLobbyState = { ...state, phase: "starting", room: null };
  return {
    state: next,
    effects: [
      { type: "timer", name: startRetryTimerName, at: env.ctx.now + env.options.startRetryMs, kind: "game" },
    ],
  };
}

/** True when no timer is pending: only a playing lobby waits on nothing but its room. */
export function matchedLobbyIdle(state: MatchedLobbyState): boolean {
  return state.phase === "playing";
}
