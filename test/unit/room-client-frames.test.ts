import { describe, expect, it } from "vitest";
import { decodeClientFrame, encodeFrame } from "../../gateway/protocol/codec.ts";
import { Session, SessionRegistry } from "../../gateway/sessions/index.ts";

/** The room requests on the wire (gateway/protocol/room-client-frames.ts) and the session's room. */

function decodes(frame: object, encoding: "json" | "msgpack" = "json"): boolean {
  return decodeClientFrame(encodeFrame(frame, encoding)).ok;
}

describe("room request frames", () => {
  it("accepts a direct create of 1 to 4 seats and nothing outside that", () => {
    const create = { type: "createRoom", id: 1, mode: "duel" };
    expect(decodes({ ...create, seats: 1 })).toBe(true);
    expect(decodes({ ...create, seats: 4, map: "harbour", options: { fog: true }, turnMs: 50 })).toBe(true);
    expect(decodes({ ...create, seats: 2, public: true, turnDurability: "persisted" })).toBe(true);
    expect(decodes({ ...create, seats: 0 })).toBe(false);
    expect(decodes({ ...create, seats: 5 })).toBe(false);
    expect(decodes({ ...create, seats: 2, turnMs: 5 })).toBe(false);
    expect(decodes({ ...create, seats: 2, host: "someone-else" })).toBe(false);
  });

  it("bounds commands by the room's limits, as text or bytes", () => {
    expect(decodes({ type: "command", id: 2, data: "x".repeat(4096) })).toBe(true);
    expect(decodes({ type: "command", id: 2, data: "x".repeat(4097) })).toBe(false);
    expect(decodes({ type: "command", id: 2, data: new Uint8Array(4096) }, "msgpack")).toBe(true);
    expect(decodes({ type: "command", id: 2, data: new Uint8Array(4097) }, "msgpack")).toBe(false);
    expect(decodes({ type: "command", id: 2, data: "x", player: "p" })).toBe(false);
  });

  it("checks checksums, chat, setAi, setup and the plain requests", () => {
    expect(decodes({ type: "checksum", id: 3, turn: 1, value: "abc" })).toBe(true);
    expect(decodes({ type: "checksum", id: 3, turn: 0, value: 7 })).toBe(false);
    expect(decodes({ type: "chat", id: 4, channel: "team", text: "hi" })).toBe(true);
    expect(decodes({ type: "chat", id: 4, channel: "whisper", text: "hi" })).toBe(false);
    expect(decodes({ type: "chat", id: 4, channel: "all", text: "" })).toBe(false);
    expect(decodes({ type: "setAi", id: 5, side: 1, ai: true })).toBe(true);
    expect(decodes({ type: "roomSetup", id: 6, map: null, teams: [0, 0, 1] })).toBe(true);
    expect(decodes({ type: "joinRoom", id: 7, code: "abcdef", side: 2 })).toBe(true);
    for (const type of ["abortRoom", "leaveRoom", "resumeRoom"]) expect(decodes({ type, id: 8 })).toBe(true);
    expect(decodes({ type: "resumeRoom", id: 8, handToAi: true })).toBe(true);
    expect(decodes({ type: "roomReady", id: 9, ready: true })).toBe(true);
  });
});

describe("the session's room", () => {
  const stamp = { epoch: 1, seq: 1 };
  const lobbyFrame = (inRoom: boolean, room: string | null) => ({
    type: "lobby",
    key: "lobby/L",
    ...stamp,
    members: [{ player: "p", inRoom }],
    room: room === null ? null : { code: room },
  });

  it("keeps a direct room through lobby frames and clears it when the room ends", () => {
    const sessions = new SessionRegistry();
    const session = new Session("s", "p", "P");
    sessions.add(session);
    session.lobby = "lobby/L";
    session.room = "room/DIRECT";
    session.directRoom = true;
    sessions.push(["p"], lobbyFrame(false, null));
    expect(session.room).toBe("room/DIRECT");
    sessions.push(["p"], { type: "room", key: "room/DIRECT", ...stamp, ended: true });
    expect([session.room, session.lastRoom, session.directRoom]).toEqual([null, "room/DIRECT", false]);
  });

  it("follows the lobby's room", () => {
    const sessions = new SessionRegistry();
    const session = new Session("s", "p", "P");
    sessions.add(session);
    session.lobby = "lobby/L";
    sessions.push(["p"], lobbyFrame(true, "ROOM"));
    expect([session.room, session.directRoom]).toEqual(["room/ROOM", false]);
    sessions.push(["p"], lobbyFrame(false, null));
    expect([session.room, session.lastRoom]).toEqual([null, "room/ROOM"]);
  });
});
