import { describe, expect, it } from "vitest";
import { Session, SessionRegistry } from "../../gateway/sessions/index.ts";
import { recordingSocket } from "./support/session-sockets.ts";

/** A connected session of `player`, registered; the frames its socket was sent. */
function connected(sessions: SessionRegistry, player: string) {
  const session = new Session(`s-${player}`, player, player);
  const socket = recordingSocket();
  session.socket = socket;
  sessions.add(session);
  return { session, told: () => socket.frames.map((f) => f.type) };
}

describe("a moved key finds its sessions by the keys they are in, not by walking every session", () => {
  it("follows each session's lobby, activity lobby and room as they change, before and after it is added", () => {
    const sessions = new SessionRegistry();
    const early = new Session("s-early", "early", "early");
    early.socket = recordingSocket();
    early.lobby = "lobby/AAAAAA";
    sessions.add(early);
    const late = connected(sessions, "late");
    late.session.lobby = "lobby/BBBBBB";
    late.session.lobby = "lobby/AAAAAA";
    late.session.room = "room/AAAAAA";
    const other = connected(sessions, "other");
    other.session.activity = "activityLobby/duel/1";

    expect(sessions.moveAway("lobby/BBBBBB", "ws://n2/ws")).toBe(0);
    expect(sessions.moveAway("lobby/AAAAAA", "ws://n2/ws")).toBe(2);
    expect(sessions.moveAway("room/AAAAAA", "ws://n2/ws")).toBe(1);
    expect(sessions.moveAway("activityLobby/duel/1", "ws://n2/ws")).toBe(1);
    expect(late.told()).toEqual(["moved", "moved"]);
    expect(other.told()).toEqual(["moved"]);
  });

  it("forgets a session that left its lobby or was removed", () => {
    const sessions = new SessionRegistry();
    const left = connected(sessions, "left");
    left.session.lobby = "lobby/AAAAAA";
    left.session.lobby = null;
    const removed = connected(sessions, "removed");
    removed.session.lobby = "lobby/AAAAAA";
    sessions.remove(removed.session);
    // Changed after it was removed: no longer the registry's to follow.
    removed.session.lobby = "lobby/AAAAAA";

    expect(sessions.moveAway("lobby/AAAAAA", "ws://n2/ws")).toBe(0);
    expect(left.told()).toEqual([]);
    expect(removed.told()).toEqual([]);
  });

  it("lets a detached session go of the moved key, and finds it no more", () => {
    const sessions = new SessionRegistry();
    const away = new Session("s-away", "away", "away");
    away.lobby = "lobby/AAAAAA";
    sessions.add(away);

    expect(sessions.moveAway("lobby/AAAAAA", "ws://n2/ws")).toBe(0);
    expect(away.lobby).toBeNull();
    away.socket = recordingSocket();
    expect(sessions.moveAway("lobby/AAAAAA", "ws://n2/ws")).toBe(0);
  });

  it("keeps following a session that a newer login of its player replaced, until it is removed", () => {
    const sessions = new SessionRegistry();
    const older = connected(sessions, "p");
    older.session.lobby = "lobby/AAAAAA";
    const newer = new Session("s-newer", "p", "p");
    newer.socket = recordingSocket();
    expect(sessions.add(newer)).toBe(older.session);
    expect(sessions.moveAway("lobby/AAAAAA", "ws://n2/ws")).toBe(1);
    sessions.remove(older.session);
    expect(sessions.moveAway("lobby/AAAAAA", "ws://n2/ws")).toBe(0);
  });
});
