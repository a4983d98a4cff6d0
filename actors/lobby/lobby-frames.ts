import type { Effect, PushFrame } from "../runtime/index.ts";
import type { LobbyState } from "./lobby-state.ts";

/** The state frame every member receives; the one view of a lobby that clients see. */

/** The `lobby` frame: the lobby as its members see it (timers and bookkeeping left out). */
export function lobbyFrame(state: LobbyState): PushFrame {
  return {
    type: "lobby",
    code: state.code,
    public: state.public,
    metadata: state.metadata,
    host: state.host,
    members: state.members.map((m) => ({
      player: m.player,
      memberId: m.memberId,
      name: m.name,
      ready: m.ready,
      team: m.team,
      connected: m.connected,
      inRoom: m.inRoom,
    })),
    playing: state.room !== null,
    room:
      state.room === null ? null : { code: state.room.code, mode: state.room.mode, seats: state.room.seats },
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
