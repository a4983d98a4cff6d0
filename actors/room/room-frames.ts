import { pushTo, type Effect, type PushFrame } from "../runtime/index.ts";
import type { RoomState, SentTurn } from "./room-state.ts";
import { missingPlayers, seatedPlayers } from "./room-state.ts";

/** The frames a room pushes to its players. */

/** The `room` frame: the room as its players see it (queue, checksums and bookkeeping left out). */
export function roomFrame(state: RoomState): PushFrame {
  return {
    type: "room",
    code: state.code,
    mode: state.mode,
    map: state.map,
    options: state.options,
    host: state.host,
    phase: state.phase,
    ended: state.phase === "ended",
    seats: state.seats.map((s) => ({
      seat: s.seat,
      team: s.team,
      player: s.player,
      name: s.name,
      ai: s.ai,
      ready: s.ready,
      connected: s.connected,
    })),
    seed: state.seed,
    turnMs: state.turnMs,
    turnDurability: state.turnDurability,
    turn: state.lastTurn,
    paused: state.clock.status === "paused" ? state.clock.reason : null,
    // Created directly (not by a lobby): the SDK joins it again after a reconnect to another node.
    direct: state.lobby === null,
    public: state.public,
    // Only a room with a document names it: `getRoomBlob` then streams it (docs/rooms.md "Large blobs").
    ...(state.blob === null ? {} : { blob: state.blob }),
  };
}

/** A frame for every seated human (disconnected ones too: a session may be coming back). */
export function pushToHumans(state: RoomState, frame: PushFrame): Effect[] {
  return pushTo(seatedPlayers(state), frame);
}

/** The room frame for every seated human. */
export function pushRoom(state: RoomState): Effect[] {
  return pushToHumans(state, roomFrame(state));
}

/** The `paused` frame: why the clock stands still, who is missing and the last turn sent. */
export function pausedFrame(state: RoomState): PushFrame {
  const reason = state.clock.status === "paused" ? state.clock.reason : "missing";
  return { type: "paused", reason, missing: missingPlayers(state), turn: state.lastTurn };
}

/** The `turn` frame of a sent turn; `ai` only when a side went to AI with it. */
export function turnFrame(sent: SentTurn): PushFrame {
  return {
    type: "turn",
    turn: sent.turn,
    commands: sent.commands.map((c) => ({ side: c.side, data: c.data })),
    ...(sent.ai.length > 0 ? { ai: sent.ai } : {}),
  };
}
