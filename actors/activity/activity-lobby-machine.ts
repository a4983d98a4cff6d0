import { reply, type Restored, type TimerFired } from "../runtime/index.ts";
import type { ActivityEnv, Step } from "./activity-env.ts";
import { connection, graceExpired, restored } from "./activity-connection.ts";
import type { ActivityLobbyMessage } from "./activity-lobby-messages.ts";
import type { ActivityLobbyState } from "./activity-lobby-state.ts";
import { join, leave, setReady } from "./activity-membership.ts";
import { countdownFired, roomEnded, roomSpawnFailed, transferEnded } from "./activity-start.ts";
import { graceTimerPlayer, transferTimerName } from "./activity-timers.ts";
import { countdownTimerName } from "./countdown.ts";

/** The activity lobby's transition function: one message in, the next state and its effects out. */

/** Handles one activity lobby message (already parsed). */
export function handleActivityLobby(
  state: ActivityLobbyState,
  message: ActivityLobbyMessage | TimerFired | Restored,
  env: ActivityEnv,
): Step {
  switch (message.type) {
    case "join":
      return join(state, message, env);
    case "leave":
      return leave(state, message, env);
    case "ready":
      return setReady(state, message, env);
    case "connection":
      return connection(state, message, env);
    case "roomEnded":
      return roomEnded(state, message.room);
    case "spawnFailed":
      return roomSpawnFailed(state, message.key, env);
    case "status":
      // Read only: a started lobby has nothing left to tell its players but their transfers.
      return { state, effects: [reply({ started: state.stage.phase === "started" })] };
    case "timer":
      return timerFired(state, message.name, env);
    case "restored":
      return restored(state, message, env);
  }
}

function timerFired(state: ActivityLobbyState, name: string, env: ActivityEnv): Step {
  if (name === countdownTimerName) return countdownFired(state, env);
  if (name === transferTimerName) return transferEnded(state);
  const player = graceTimerPlayer(name);
  return player === undefined ? { state, effects: [] } : graceExpired(state, player, env);
}

/**
 * True while the lobby has started and sees its players off to its room: a drain leaves it on the node of
 * that room (which a running match pins there too) until its players loaded, the room ended or the
 * transfer window closed, so its players are never sent away from their room.
 */
export function activityLobbyPinned(state: ActivityLobbyState): boolean {
  return state.stage.phase === "started";
}

/**
 * True when the lobby has no timer pending: the countdown is held, nobody is on a grace, and it has not
 * started (a started lobby waits for its transfer window). Timers follow from the state, so it need not
 * list them.
 */
export function activityLobbyIdle(state: ActivityLobbyState): boolean {
  return (
    state.stage.phase === "waiting" &&
    !state.stage.countdown.running &&
    state.players.every((p) => p.connected)
  );
}
