import {
  refuse,
  reply,
  type ActorContext,
  type Effect,
  type Restored,
  type TimerFired,
  type Transition,
} from "../runtime/index.ts";
import type { ActivityDirectoryMessage, ActivityDirectoryMessageOf } from "./activity-directory-messages.ts";
import type { ActivityDirectoryState, DirectoryLobby } from "./activity-directory-state.ts";
import { hasRoom } from "./activity-directory-state.ts";
import { activityLobbyKey } from "./activity-keys.ts";
import type { ActivityLobbyInit } from "./activity-lobby-messages.ts";
import type { ActivitySettingsFile } from "./activity-settings.ts";
import { capacity, findActivity } from "./activity-settings.ts";

/**
 * The directory's transition function. It sends each joining player to the oldest lobby of its activity
 * with room, or opens a new one, and answers `{ lobby: key }`; the gateway then sends the join there.
 * Its counts are hints kept fresh by the lobbies' reports; each lobby decides for itself who gets in.
 */

type Step = Transition<ActivityDirectoryState>;

/** What a directory handler reads besides its state and message. */
export interface DirectoryEnv {
  readonly activities: ActivitySettingsFile;
  readonly ctx: ActorContext;
}

function patch(
  state: ActivityDirectoryState,
  lobby: string,
  change: Partial<DirectoryLobby>,
): ActivityDirectoryState {
  return { ...state, lobbies: state.lobbies.map((l) => (l.lobby === lobby ? { ...l, ...change } : l)) };
}

function listed(state: ActivityDirectoryState, lobby: string | undefined): DirectoryLobby | undefined {
  return lobby === undefined ? undefined : state.lobbies.find((l) => l.lobby === lobby);
}

/**
 * A player asks to join the activity. A lobby that just refused it FULL counts as full until it reports
 * again; a player already in one of this activity's waiting lobbies is sent back to it; otherwise it goes
 * to the oldest lobby with room (a seat is reserved there until the lobby's next report), or to a new
 * one. A `previous` lobby the player is leaving for this one is told `leave`.
 */
export function join(
  state: ActivityDirectoryState,
  message: ActivityDirectoryMessageOf<"join">,
  env: DirectoryEnv,
): Step {
  const settings = findActivity(env.activities, state.activity);
  if (settings === undefined)
    return refuse(state, "NOT_FOUND", `no activity ${state.activity} is configured`);
  const refused = listed(state, message.full);
  const hinted = refused === undefined ? state : patch(state, refused.lobby, { open: false });
  const current = message.previous === message.full ? undefined : listed(hinted, message.previous);
  if (current !== undefined) return { state: hinted, effects: [reply({ lobby: current.lobby })] };
  const oldest = hinted.lobbies.find(hasRoom);
  let next: ActivityDirectoryState;
  let lobby: string;
  const effects: Effect[] = [];
  if (oldest !== undefined) {
    lobby = oldest.lobby;
    next = patch(hinted, lobby, { players: oldest.players + 1 });
  } else {
    lobby = activityLobbyKey(settings.id, hinted.next);
    const entry: DirectoryLobby = { lobby, players: 1, capacity: capacity(settings), open: true, version: 0 };
    next = { ...hinted, next: hinted.next + 1, lobbies: [...hinted.lobbies, entry] };
    const init: ActivityLobbyInit = { settings };
    effects.push({ type: "spawn", key: lobby, init });
  }
  if (message.previous !== undefined && message.previous !== lobby) {
    effects.push({
      type: "tell",
      to: message.previous,
      message: { type: "leave", player: message.player.id },
    });
  }
  return { state: next, effects: [...effects, reply({ lobby })] };
}

/** A lobby's report replaces what the directory knew, unless a newer one came first or the lobby is gone. */
function status(state: ActivityDirectoryState, message: ActivityDirectoryMessageOf<"lobbyStatus">): Step {
  const entry = listed(state, message.lobby);
  if (entry === undefined || message.version <= entry.version) return { state, effects: [] };
  const { players, open, version } = message;
  return { state: patch(state, entry.lobby, { players, open, version }), effects: [] };
}

/** A lobby started or closed: it takes nobody any more, and the directory forgets it. */
function closed(state: ActivityDirectoryState, lobby: string): Step {
  if (listed(state, lobby) === undefined) return { state, effects: [] };
  return { state: { ...state, lobbies: state.lobbies.filter((l) => l.lobby !== lobby) }, effects: [] };
}

/** Handles one directory message (already parsed). */
export function handleActivityDirectory(
  state: ActivityDirectoryState,
  message: ActivityDirectoryMessage | TimerFired | Restored,
  env: DirectoryEnv,
): Step {
  switch (message.type) {
    case "join":
      return join(state, message, env);
    case "lobbyStatus":
      return status(state, message);
    case "lobbyClosed":
      return closed(state, message.lobby);
    case "timer":
    case "restored":
      return { state, effects: [] };
  }
}
