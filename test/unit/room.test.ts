import { describe, expect, it } from "vitest";
import { roomKind, roomSchemaVersion, type RoomState } from "../../actors/room/index.ts";
import { testContext } from "../../actors/runtime/test-context.ts";
import type { Effect } from "../../actors/runtime/types.ts";

const kind = roomKind();
const seats = [
  { seat: 1, team: 0, player: "alice" },
  { seat: 2, team: 1, player: "bob" },
  { seat: 50, team: 1, player: null },
];
const init = { code: "QWERTY", lobby: "lobby/ABC123", mode: "duo", host: "alice", seats };

function room() {
  const ctx = testContext({ key: "room/QWERTY" });
  const created = kind.create(init, ctx);
  let state: RoomState = created.state;
  return {
    created: created.effects,
    get state() {
      return state;
    },
    send(message: unknown): readonly Effect[] {
      const parsed = kind.parse(message);
      expect(parsed, JSON.stringify(message)).toBeDefined();
      const t = kind.handle(state, parsed!, ctx);
      state = t.state;
      return t.effects;
    },
  };
}

describe("minimal room", () => {
  it("create seats the lobby and tells the seated humans", () => {
    const r = room();
    expect(r.state).toEqual({ ...init, ended: false, left: [] });
    expect(r.created).toEqual([
      {
        type: "push",
        to: ["alice", "bob"],
        frame: { type: "room", code: "QWERTY", mode: "duo", seats, host: "alice", ended: false },
      },
    ]);
  });

  it("end (from the lobby) stops the room at once without reporting back", () => {
    const r = room();
    expect(r.send({ type: "end" })).toEqual([{ type: "reply" }, { type: "stop" }]);
  });

  it("leaveSeat records the player and the room plays on", () => {
    const r = room();
    expect(r.send({ type: "leaveSeat", player: "bob" })).toEqual([{ type: "reply" }]);
    expect(r.state.left).toEqual(["bob"]);
    const before = r.state;
    r.send({ type: "leaveSeat", player: "bob" });
    r.send({ type: "leaveSeat", player: "zed" });
    expect(r.state).toBe(before);
  });

  it("finish tells the lobby roomEnded, then stops", () => {
    const r = room();
    r.send({ type: "leaveSeat", player: "bob" });
    expect(r.send({ type: "finish", player: "alice" })).toEqual([
      {
        type: "push",
        to: ["alice"],
        frame: { type: "room", code: "QWERTY", mode: "duo", seats, host: "alice", ended: true },
      },
      { type: "tell", to: "lobby/ABC123", message: { type: "roomEnded", room: "QWERTY" } },
      { type: "reply" },
      { type: "stop" },
    ]);
  });

  it("finish from a player without a seat is refused with the state unchanged", () => {
    const r = room();
    const before = r.state;
    expect(r.send({ type: "finish", player: "zed" })).toEqual([
      { type: "reject", code: "NOT_IN_LOBBY", message: "zed has no seat in room QWERTY" },
    ]);
    expect(r.state).toBe(before);
  });

  it("parse, upgrade, idle and a bad init", () => {
    expect(kind.parse({ type: "end", player: "alice" })).toBeUndefined();
    expect(kind.parse({ type: "finish" })).toBeUndefined();
    const r = room();
    expect(kind.upgrade(JSON.parse(JSON.stringify(r.state)), roomSchemaVersion)).toEqual(r.state);
    expect(kind.idle(r.state)).toBe(true);
    expect(() => kind.create({ ...init, seats: [] }, testContext())).toThrow();
  });
});
