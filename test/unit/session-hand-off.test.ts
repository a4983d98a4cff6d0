import { describe, expect, it } from "vitest";
import { signResumeToken } from "../../gateway/auth/resume-token.ts";
import { bindSession } from "../../gateway/session-binding.ts";
import { Session, SessionRegistry } from "../../gateway/sessions/index.ts";
import { lobbyFrameOf, recordingSocket } from "./support/session-sockets.ts";

function registryWith(players: { id: string; lobby: string; connected: boolean }[]) {
  const sessions = new SessionRegistry();
  const made = players.map(({ id, lobby, connected }) => {
    const session = new Session(`s-${id}`, id, id);
    const socket = recordingSocket();
    if (connected) session.socket = socket;
    session.lobby = lobby;
    sessions.add(session);
    return { session, socket };
  });
  return { sessions, made };
}

describe("a lobby moved away while its members are connected here (make before break)", () => {
  it("tells each connected member `moved`, and keeps the lobby as theirs, handed off", () => {
    const { sessions, made } = registryWith([
      { id: "a", lobby: "lobby/MOVE", connected: true },
      { id: "b", lobby: "lobby/MOVE", connected: false },
      { id: "c", lobby: "lobby/STAY", connected: true },
    ]);
    expect(sessions.moveAway("lobby/MOVE", "ws://n2/ws")).toBe(1);
    const [a, b, c] = made;
    expect(a?.socket.frames).toEqual([{ type: "moved", key: "lobby/MOVE", url: "ws://n2/ws" }]);
    // Its requests still name the lobby (the router forwards them); its socket closing is no drop.
    expect(a?.session.lobby).toBe("lobby/MOVE");
    expect(a?.session.handedOff).toEqual(["lobby/MOVE"]);
    // A detached member comes back through its registry, which names the new owner.
    expect(b?.session.lobby).toBeNull();
    expect(b?.session.handedOff).toBeNull();
    expect(c?.session.handedOff).toBeNull();
    expect(sessions.handedOffConnected).toBe(1);
  });

  it("still hands the moved lobby's frames (relayed by its new node) to the member", () => {
    const { sessions, made } = registryWith([{ id: "p", lobby: "lobby/MOVE", connected: true }]);
    sessions.moveAway("lobby/MOVE", "ws://n2/ws");
    sessions.push(["p"], lobbyFrameOf("lobby/MOVE", 2));
    expect(made[0]?.socket.frames.map((f) => f.type)).toEqual(["moved", "lobby"]);
  });

  it.each([true, false])(
    "lets go of the handed-off lobby when the member says hello here again (resume: %s)",
    (resume) => {
      const { sessions, made } = registryWith([{ id: "p", lobby: "lobby/MOVE", connected: true }]);
      sessions.moveAway("lobby/MOVE", "ws://n2/ws");
      const session = made[0]?.session;
      if (session === undefined) throw new Error("no session");
      const secret = "s".repeat(32);
      const hello = resume
        ? {
            type: "hello" as const,
            protocol: 1,
            token: "t",
            resume: signResumeToken(session.id, "p", secret),
          }
        : { type: "hello" as const, protocol: 1, token: "t" };
      const bound = bindSession(
        recordingSocket(),
        hello,
        { sub: "p", name: "p" },
        {
          sessions,
          sessionSecret: secret,
          nodeId: "n1",
        },
      );
      // Resumed, the same session; a fresh login replaces it and does not inherit the lobby either.
      expect(bound.welcome.resumed).toBe(resume);
      expect(bound.session === session).toBe(resume);
      expect(session.lobby).toBeNull();
      expect(bound.session.lobby).toBeNull();
      expect(session.handedOff).toBeNull();
      expect(sessions.handedOffConnected).toBe(0);
    },
  );

  it("sends a session that enters the lobby after the move after it too (a join answered during the move)", () => {
    const { sessions } = registryWith([{ id: "a", lobby: "lobby/MOVE", connected: true }]);
    sessions.moveAway("lobby/MOVE", "ws://n2/ws");
    const joiner = new Session("s-j", "j", "j");
    const socket = recordingSocket();
    joiner.socket = socket;
    sessions.add(joiner);
    joiner.lobby = "lobby/MOVE";
    expect(socket.frames).toEqual([{ type: "moved", key: "lobby/MOVE", url: "ws://n2/ws" }]);
    expect(joiner.lobby).toBe("lobby/MOVE");
    expect(joiner.handedOff).toEqual(["lobby/MOVE"]);
    // Entering a lobby that did not move, or after the node reset, says nothing.
    const other = new Session("s-o", "o", "o");
    const otherSocket = recordingSocket();
    other.socket = otherSocket;
    sessions.add(other);
    other.lobby = "lobby/STAY";
    sessions.forgetMoves();
    other.lobby = "lobby/MOVE";
    expect(otherSocket.frames).toEqual([]);
    expect(other.handedOff).toBeNull();
  });

  it("lets a detached session that enters the moved lobby go of it", () => {
    const { sessions } = registryWith([]);
    sessions.moveAway("lobby/MOVE", "ws://n2/ws");
    const away = new Session("s-d", "d", "d");
    sessions.add(away);
    away.lobby = "lobby/MOVE";
    expect(away.lobby).toBeNull();
    expect(away.handedOff).toBeNull();
  });
});
