import type { Effect, PushFrame } from "../runtime/index.ts";
import { publicValues } from "./lobby-data-values.ts";
import type { LobbyState } from "./lobby-state.ts";

/** The state frame every member receives; the one view of a lobby that clients see. */

/**
 * The `lobby` frame: the lobby as its members see it (timers, bans and the password's hash left out).
 * Members see all of its data, `public` and `member` keys alike; `metadata` is its public values, as
 * older clients read them (null when there are none).
 */
export function lobbyFrame(state: LobbyState): PushFrame {
  const metadata = publicValues(state.data);
  return {
    type: "lobby",
    code: state.code,
    version: state.version,
    public: state.public,
    metadata: Object.keys(metadata).length === 0 ? null : metadata,
    data: state.data,
    maxMembers: state.door.maxMembers,
    locked: state.door.locked,
    hasPassword: state.door.passwordHash !== null,
    host: state.host,
    members: state.members.map((m) => ({
      player: m.player,
      memberId: m.memberId,
      name: m.name,
      ready: m.ready,
      team: m.team,
      connected: m.connected,
      inRoom: m.inRoom,
      data: m.data,
    })),
    playing: state.room !== null,
    room:
      state.room === null ? null : { code: state.room.code, mode: state.room.mode, seats: state.room.seats },
    searching: state.searching,
  };
}

/** Sends the state to every member (disconnected ones too: a session may be coming back elsewhere). */
export function pushState(state: LobbyState): Effect {
  return { type: "push", to: state.members.map((m) => m.player), frame: lobbyFrame(state) };
}

/** Sends the state to one player only: a resync that changed nothing for the others. */
export function pushStateTo(state: LobbyState, player: string): Effect {
  return { type: "push", to: [player], frame: lobbyFrame(state) };
}
