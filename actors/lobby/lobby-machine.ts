import type { Restored, TimerFired, Transition } from "../runtime/index.ts";
import { connection, graceExpired, restored, roomRestored } from "./lobby-connection.ts";
import { lobbyFrame } from "./lobby-frames.ts";
import type { LobbyMessage } from "./lobby-messages.ts";
import { join, leave, makeHost, setProfile, setReady } from "./lobby-membership.ts";
import { kick } from "./lobby-moderation.ts";
import { setLobbyData, setMemberData } from "./lobby-data.ts";
import { setDoor } from "./lobby-door.ts";
import { chat } from "./lobby-chat.ts";
import { partySearch, partySearchEnded } from "./lobby-party-search.ts";
import { returnTimerFired, returnToLobby, roomEnded, roomSpawnFailed, start } from "./lobby-room.ts";
import type { LobbyState } from "./lobby-state.ts";
import { graceTimerPlayer, returnTimerName } from "./lobby-timers.ts";
import type { LobbyEnv } from "./lobby-env.ts";

/** The lobby's transition function: one message in, the next state and its effects out. */

/** Handles one lobby message (already parsed). */
export function handleLobby(
  state: LobbyState,
  message: LobbyMessage | TimerFired | Restored,
  env: LobbyEnv,
): Transition<LobbyState> {
  switch (message.type) {
    case "join":
      return join(state, message, env);
    case "leave":
      return leave(state, message, env);
    case "ready":
      return setReady(state, message);
    case "profile":
      return setProfile(state, message);
    case "makeHost":
      return makeHost(state, message);
    case "start":
      return start(state, message, env);
    case "return":
      return returnToLobby(state, message, env);
    case "kick":
      return kick(state, message, env);
    case "setData":
      return setLobbyData(state, message, env);
    case "setMemberData":
      return setMemberData(state, message, env);
    case "setDoor":
      return setDoor(state, message, env);
    case "chat":
      return chat(state, message, env);
    case "view":
      return { state, effects: [{ type: "reply", value: lobbyFrame(state) }] };
    case "connection":
      return connection(state, message, env);
    case "roomEnded":
      return roomEnded(state, message, env);
    case "roomRestored":
      return roomRestored(state, message);
    case "spawnFailed":
      return roomSpawnFailed(state, message);
    case "timer":
      return timerFired(state, message.name, env);
    case "restored":
      return restored(state, message, env);
    case "partySearch":
      return partySearch(state, message);
    case "partySearchEnded":
      return partySearchEnded(state, message);
    case "listingCheck":
      // The kind adds the listing (lobby-kind.ts): nothing changes here.
      return { state, effects: [] };
  }
}

function timerFired(state: LobbyState, name: string, env: LobbyEnv): Transition<LobbyState> {
  if (name === returnTimerName) return returnTimerFired(state, env);
  const player = graceTimerPlayer(name);
  return player === undefined ? { state, effects: [] } : graceExpired(state, player, env);
}

/**
 * True when the lobby has no timer pending: nobody is in a grace and no return is due. Timers are
 * derived from the state (a disconnected member has its grace, an ended room its return), so the state
 * need not list them.
 */
export function lobbyIdle(state: LobbyState): boolean {
  return state.members.every((m) => m.connected) && state.room?.ended !== true;
}
