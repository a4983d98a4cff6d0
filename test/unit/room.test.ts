import { describe, expect, it } from "vitest";
import { roomKind, roomSchemaVersion } from "../../actors/room/index.ts";
import { testContext } from "../../actors/runtime/test-context.ts";
import { pushed, roomDriver, T0 } from "./support/room-driver.ts";

/** The room's contract with the lobby that starts it (actors/lobby/lobby-room.ts): unchanged by the relay. */

const kind = roomKind();
const seats = [
  { seat: 1, team: 0, player: "alice" },
  { seat: 2, team: 1, player: "bob" },
  { seat: 50, team: 1, player: null },
];
const init = { code: "QWERTY", lobby: "lobby/ABC123", mode: "duo", host: "alice", seats };
const room = () => roomDriver(init);

/** The seats as the room frame shows them, everyone connected and ready. */
const seatViews = (bobLeft = false) => [
  { seat: 1, team: 0, player: "alice", name: null, ai: false, ready: true, connected: true },
  bobLeft
    ? { seat: 2, team: 1, player: null, name: null, ai: true, ready: false, connected: false }
    : { seat: 2, team: 1, player: "bob", name: null, ai: false, ready: true, connected: true },
  { seat: 50, team: 1, player: null, name: null, ai: true, ready: false, connected: false },
];

describe("a room started by a lobby", () => {
  it("seats the lobby, starts at once and tells the seated humans", () => {
    const r = room();
    expect(r.state).toMatchObject({ code: "QWERTY", lobby: "lobby/ABC123", host: "alice", phase: "playing" });
    expect(r.created).toEqual([
      {
        type: "push",
        to: ["alice", "bob"],
        frame: {
          type: "room",
          code: "QWERTY",
          mode: "duo",
          map: null,
          options: {},
          host: "alice",
          phase: "playing",
          ended: false,
          seats: seatViews(),
          seed: r.state.seed,
          turnMs: 100,
          turnDurability: "volatile",
          turn: 0,
          paused: null,
          direct: false,
          public: false,
        },
      },
      { type: "timer", name: "turn", at: T0 + 100, kind: "game" },
    ]);
  });

  it("end (from the lobby) stops the room at once without reporting back", () => {
    const r = room();
    expect(r.send({ type: "end" })).toEqual([{ type: "reply" }, { type: "stop" }]);
  });

  it("leaveSeat hands the seat to AI and the room plays on; a stale notice changes nothing", () => {
    const r = room();
    const effects = r.send({ type: "leaveSeat", player: "bob" });
    expect(pushed(effects, "room")).toEqual([
      { to: ["alice"], frame: expect.objectContaining({ seats: seatViews(true) }) },
    ]);
    expect(effects.at(-1)).toEqual({ type: "reply" });
    expect(r.state.phase).toBe("playing");
    const before = r.state;
    expect(r.send({ type: "leaveSeat", player: "bob" })).toEqual([{ type: "reply" }]);
    expect(r.send({ type: "leaveSeat", player: "zed" })).toEqual([{ type: "reply" }]);
    expect(r.state).toBe(before);
  });

  it("finish tells the lobby roomEnded, then stops", () => {
    const r = room();
    r.send({ type: "leaveSeat", player: "bob" });
    expect(r.send({ type: "finish", player: "alice" })).toEqual([
      {
        type: "push",
        to: ["alice"],
        frame: expect.objectContaining({ type: "room", seats: seatViews(true), phase: "ended", ended: true }),
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

  it("the last human leaving ends the match and tells the lobby", () => {
    const r = room();
    r.send({ type: "leaveSeat", player: "bob" });
    expect(r.send({ type: "leaveSeat", player: "alice" })).toEqual([
      { type: "tell", to: "lobby/ABC123", message: { type: "roomEnded", room: "QWERTY" } },
      { type: "reply" },
      { type: "stop" },
    ]);
  });

  it("parse, upgrade, idle and a bad init", () => {
    expect(kind.parse({ type: "end", player: "alice" })).toBeUndefined();
    expect(kind.parse({ type: "finish" })).toBeUndefined();
    const r = room();
    expect(kind.upgrade(JSON.parse(JSON.stringify(r.state)), roomSchemaVersion)).toEqual(r.state);
    expect(kind.idle(r.state)).toBe(false);
    expect(() => kind.create({ ...init, seats: [] }, testContext())).toThrow();
    expect(() => kind.create({ ...init, extra: 1 }, testContext())).toThrow();
    expect(() => kind.upgrade(r.state, 3)).toThrow(RangeError);
  });

  it("upgrade reads a minimal room (version 1): stepped-out players hold AI seats, the host resumes", () => {
    const v1 = { ...init, ended: false, left: ["bob"] };
    const state = kind.upgrade(v1, 1);
    expect(state).toMatchObject({
      code: "QWERTY",
      lobby: "lobby/ABC123",
      host: "alice",
      phase: "playing",
      clock: { status: "paused", reason: "missing" },
      lastTurn: 0,
      turnMs: 100,
    });
    expect(state.seats.map((s) => [s.seat, s.player, s.ai])).toEqual([
      [1, "alice", false],
      [2, null, true],
      [50, null, true],
    ]);
    expect(kind.upgrade(v1, 1).seed).toBe(state.seed);
    expect(kind.idle(state)).toBe(true);
    const resumed = kind.handle(state, { type: "resume", player: "alice" }, testContext());
    expect(resumed.state.clock.status).toBe("running");
  });
});
