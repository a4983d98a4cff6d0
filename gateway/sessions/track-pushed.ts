import type { StampedFrame } from "../../actors/runtime/index.ts";
import type { Session } from "./session.ts";

/** Keeps the session's idea of its lobby, activity lobby and room current from the frames it is sent. */
export function trackPushed(session: Session, frame: StampedFrame): void {
  if (frame.type === "room") {
    // The final frame of an ended room: the player is seated nowhere now.
    if (frame.key === session.room && frame.ended === true) {
      session.lastRoom = session.room;
      session.room = null;
      session.directRoom = false;
    } else if (session.room === null && frame.ended !== true && frame.direct === true) {
      // A room created directly seats this player and runs here (taken over after a failover, say):
      // the session learns its room from the room itself, so its requests (the answer to the room's
      // `turnsWanted` first) reach it before the SDK's own rejoin is through.
      session.room = frame.key;
      session.directRoom = true;
    }
    return;
  }
  if (frame.type === "activity") {
    // Its own PLAYER_REMOVED is the last frame a player hears from an activity lobby it left.
    if (frame.key === session.activity && frame.event === "PLAYER_REMOVED" && frame.player === session.player)
      session.activity = null;
    return;
  }
  if (frame.type !== "lobby" || frame.key !== session.lobby) return;
  const members = frame.members as readonly { player: string; inRoom: boolean }[];
  const me = members.find((m) => m.player === session.player);
  const room = frame.room as { code: string } | null;
  const lobbyRoom = room && me?.inRoom === true ? `room/${room.code}` : null;
  if (!me) {
    session.lastLobby = session.lobby;
    session.lobby = null;
  }
  // A room the player created or joined directly is not the lobby's to clear; a lobby start seats it anew.
  if (session.directRoom && lobbyRoom === null) return;
  if (session.room) session.lastRoom = session.room;
  session.room = lobbyRoom;
  session.directRoom = false;
}

/**
 * A frame of a lobby other than the one this session is in (or entering). The player moved on, and the lobby
 * it left still lists it until its registry's leave reaches it: after a failover, that lobby is restored
 * and heard from before the leave lands, and its frames would show the player a lobby it is not in.
 */
export function fromLobbyLeftBehind(session: Session, frame: StampedFrame): boolean {
  return (
    frame.type === "lobby" &&
    session.lobby !== null &&
    frame.key !== session.lobby &&
    frame.key !== session.entering
  );
}
