import { describe, expect, it } from "vitest";
import { Session, SessionRegistry } from "../../gateway/sessions/index.ts";
import { lobbyFrameOf, recordingSocket } from "./support/session-sockets.ts";

function sessionIn(lobby: string | null) {
  const sessions = new SessionRegistry();
  const session = new Session("s", "p", "P");
  const socket = recordingSocket();
  session.socket = socket;
  session.lobby = lobby;
  sessions.add(session);
  return { sessions, session, socket };
}

describe("lobby frames a session is sent", () => {
  it("a lobby the player moved away from is not heard, even when it still lists the player", () => {
    // After a failover, the lobby the player left is restored before its registry's leave reaches it.
    const { sessions, socket } = sessionIn("lobby/SECOND");
    sessions.push(["p"], lobbyFrameOf("lobby/FIRST", 7));
    sessions.push(["p"], lobbyFrameOf("lobby/SECOND"));
    expect(socket.keys).toEqual(["lobby/SECOND"]);
  });

  it("the lobby a join or create is entering is heard before the answer arrives", () => {
    const { sessions, session, socket } = sessionIn("lobby/FIRST");
    session.entering = "lobby/SECOND";
    sessions.push(["p"], lobbyFrameOf("lobby/SECOND"));
    expect(socket.keys).toEqual(["lobby/SECOND"]);
  });

  it("a session in no lobby hears any lobby that lists it (a fresh login finding its lobby)", () => {
    const { sessions, socket } = sessionIn(null);
    sessions.push(["p"], lobbyFrameOf("lobby/ANY"));
    expect(socket.keys).toEqual(["lobby/ANY"]);
  });
});

describe("players a restored actor counts as connected here", () => {
  it("every player with a socket for a lobby; only its own player for a player's record", () => {
    const { sessions } = sessionIn("lobby/AAA");
    const away = new Session("s2", "q", "Q");
    sessions.add(away);
    const other = new Session("s3", "r", "R");
    other.socket = recordingSocket();
    sessions.add(other);
    expect(sessions.connectedFor("lobby/AAA").sort()).toEqual(["p", "r"]);
    expect(sessions.connectedFor("player/p")).toEqual(["p"]);
    expect(sessions.connectedFor("player/q")).toEqual([]);
    expect(sessions.connectedFor("player/nobody")).toEqual([]);
  });
});
