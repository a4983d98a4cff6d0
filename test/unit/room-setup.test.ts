import { describe, expect, it } from "vitest";
import { roomKind } from "../../actors/room/index.ts";
import { testContext } from "../../actors/runtime/test-context.ts";
import { directRoom, expectRefused, ofType, pushed, roomDriver, T0 } from "./support/room-driver.ts";

/** A room created directly (SPEC §5): seats, the host's choices, the ready rule. */

const join = (id: string, side?: number) => ({
  type: "join",
  player: { id, name: id.toUpperCase() },
  ...(side === undefined ? {} : { side }),
});
const seatRows = (d: ReturnType<typeof directRoom>) =>
  d.state.seats.map((s) => [s.seat, s.player, s.ai, s.ready]);

describe("creating a room directly", () => {
  it("seats the creator on side 0 as host, draws a shared seed and answers the room", () => {
    const d = directRoom(3, { options: { heroes: true } });
    expect(d.state).toMatchObject({
      lobby: null,
      host: "alice",
      phase: "setup",
      mode: "versus",
      map: "caves",
      options: { heroes: true },
      clock: { status: "stopped" },
      lastTurn: 0,
    });
    expect(seatRows(d)).toEqual([
      [0, "alice", false, false],
      [1, null, false, false],
      [2, null, false, false],
    ]);
    expect(d.state.seats.map((s) => s.team)).toEqual([0, 1, 2]);
    expect(d.created).toEqual([
      { type: "push", to: ["alice"], frame: expect.objectContaining({ type: "room", phase: "setup" }) },
      { type: "reply", value: { room: "QWERTY", side: 0 } },
    ]);
    expect(ofType(d.created, "timer")).toEqual([]);
  });

  it("draws the seed from ctx.random: the same seed gives the same room, another seed another", () => {
    const init = { code: "QWERTY", direct: true, host: { id: "alice", name: "A" }, seats: 2, mode: "m" };
    const seedOf = (seed: number) => roomDriver(init, seed).state.seed;
    expect(seedOf(5)).toBe(seedOf(5));
    expect(seedOf(5)).not.toBe(seedOf(6));
    expect(Number.isInteger(seedOf(5))).toBe(true);
  });

  it("refuses 0 or 5 seats, and a bad turn length", () => {
    const kind = roomKind();
    const base = { code: "QWERTY", direct: true, host: { id: "a", name: "A" }, mode: "m" };
    expect(() => kind.create({ ...base, seats: 0 }, testContext())).toThrow();
    expect(() => kind.create({ ...base, seats: 5 }, testContext())).toThrow();
    expect(() => kind.create({ ...base, seats: 2, turnMs: 0 }, testContext())).toThrow();
    expect(kind.create({ ...base, seats: 1 }, testContext()).state.seats).toHaveLength(1);
  });
});

describe("join", () => {
  it("takes the next free seat, tells everyone and answers the side", () => {
    const d = directRoom(3);
    const effects = d.send(join("bob"));
    expect(pushed(effects, "room").map((p) => p.to)).toEqual([["alice", "bob"]]);
    expect(effects.at(-1)).toEqual({ type: "reply", value: { room: "QWERTY", side: 1 } });
    expect(d.send(join("carol")).at(-1)).toEqual({ type: "reply", value: { room: "QWERTY", side: 2 } });
    expectRefused(d, join("dave"), "FULL");
  });

  it("skips AI seats, may name a free side, and a seated player is sent the room again", () => {
    const d = directRoom(4);
    d.send({ type: "setAi", player: "alice", side: 1, ai: true });
    expect(d.send(join("bob")).at(-1)).toEqual({ type: "reply", value: { room: "QWERTY", side: 2 } });
    expect(d.send(join("carol", 3)).at(-1)).toEqual({ type: "reply", value: { room: "QWERTY", side: 3 } });
    expectRefused(d, join("dave", 1), "INVALID");
    expectRefused(d, join("dave", 9), "INVALID");
    expectRefused(d, join("dave"), "FULL");
    const before = d.state;
    expect(d.send(join("bob"))).toEqual([
      { type: "push", to: ["bob"], frame: expect.objectContaining({ type: "room" }) },
      { type: "reply", value: { room: "QWERTY", side: 2 } },
    ]);
    expect(d.state).toBe(before);
  });

  it("after the start is ALREADY_PLAYING", () => {
    const d = directRoom(3);
    d.send({ type: "ready", player: "alice", ready: true });
    expect(d.state.phase).toBe("playing");
    expectRefused(d, join("bob"), "ALREADY_PLAYING");
  });
});

describe("setAi (the seed's set_ai)", () => {
  it("the host marks a free seat as AI before the start, and clears it again", () => {
    const d = directRoom(3);
    const effects = d.send({ type: "setAi", player: "alice", side: 2, ai: true });
    expect(pushed(effects, "room")).toHaveLength(1);
    expect(seatRows(d)[2]).toEqual([2, null, true, false]);
    const before = d.state;
    expect(d.send({ type: "setAi", player: "alice", side: 2, ai: true })).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(before);
    d.send({ type: "setAi", player: "alice", side: 2, ai: false });
    expect(seatRows(d)[2]).toEqual([2, null, false, false]);
  });

  it("only the host, only before the start, never side 0, never a player's seat, only a real side", () => {
    const d = directRoom(3);
    d.send(join("bob"));
    expectRefused(d, { type: "setAi", player: "bob", side: 2, ai: true }, "NOT_HOST");
    expectRefused(d, { type: "setAi", player: "zed", side: 2, ai: true }, "NOT_IN_LOBBY");
    expectRefused(d, { type: "setAi", player: "alice", side: 0, ai: true }, "INVALID");
    expectRefused(d, { type: "setAi", player: "alice", side: 1, ai: true }, "INVALID");
    expectRefused(d, { type: "setAi", player: "alice", side: 7, ai: true }, "INVALID");
    d.send({ type: "ready", player: "alice", ready: true });
    d.send({ type: "ready", player: "bob", ready: true });
    expectRefused(d, { type: "setAi", player: "alice", side: 2, ai: true }, "ALREADY_PLAYING");
  });
});

describe("ready and the start", () => {
  it("the match starts when every human seat is ready: free and AI seats do not count", () => {
    const d = directRoom(4);
    d.send(join("bob"));
    d.send({ type: "setAi", player: "alice", side: 2, ai: true });
    d.send({ type: "ready", player: "alice", ready: true });
    expect(d.state.phase).toBe("setup");
    d.send({ type: "ready", player: "bob", ready: false });
    d.send({ type: "ready", player: "alice", ready: false });
    d.send({ type: "ready", player: "alice", ready: true });
    const effects = d.send({ type: "ready", player: "bob", ready: true });
    expect(d.state.phase).toBe("playing");
    expect(d.state.clock).toEqual({ status: "running", nextAt: T0 + 100 });
    expect(effects).toEqual([
      {
        type: "push",
        to: ["alice", "bob"],
        frame: expect.objectContaining({ type: "room", phase: "playing", seed: d.state.seed }),
      },
      { type: "timer", name: "turn", at: T0 + 100, kind: "game" },
      { type: "reply" },
    ]);
  });

  it("a disconnected human holds the start until it is back", () => {
    const d = directRoom(2);
    d.send(join("bob"));
    d.send({ type: "ready", player: "bob", ready: true });
    d.send({ type: "connection", player: "bob", connected: false });
    d.send({ type: "ready", player: "alice", ready: true });
    expect(d.state.phase).toBe("setup");
    d.send({ type: "connection", player: "bob", connected: true });
    expect(d.state.phase).toBe("playing");
  });

  it("ready from a stranger is NOT_IN_LOBBY; after the start ALREADY_PLAYING; a repeat changes nothing", () => {
    const d = directRoom(2);
    expectRefused(d, { type: "ready", player: "zed", ready: true }, "NOT_IN_LOBBY");
    const before = d.state;
    expect(d.send({ type: "ready", player: "alice", ready: false })).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(before);
    d.send({ type: "ready", player: "alice", ready: true });
    expectRefused(d, { type: "ready", player: "alice", ready: false }, "ALREADY_PLAYING");
  });
});

describe("setup (the host's choices)", () => {
  it("changes mode, map, teams and options, and clears every ready flag", () => {
    const d = directRoom(3);
    d.send(join("bob"));
    d.send({ type: "ready", player: "bob", ready: true });
    d.send({ type: "setup", player: "alice", mode: "coop", teams: [0, 0, 1], options: { heroes: false } });
    expect(d.state).toMatchObject({ mode: "coop", map: "caves", options: { heroes: false } });
    expect(d.state.seats.map((s) => [s.team, s.ready])).toEqual([
      [0, false],
      [0, false],
      [1, false],
    ]);
    d.send({ type: "setup", player: "alice", map: null });
    expect(d.state.map).toBeNull();
  });

  it("host only, teams for every seat, and not after the start", () => {
    const d = directRoom(2);
    d.send(join("bob"));
    expectRefused(d, { type: "setup", player: "bob", map: "x" }, "NOT_HOST");
    expectRefused(d, { type: "setup", player: "zed", map: "x" }, "NOT_IN_LOBBY");
    expectRefused(d, { type: "setup", player: "alice", teams: [0] }, "INVALID");
    d.send({ type: "ready", player: "alice", ready: true });
    d.send({ type: "ready", player: "bob", ready: true });
    expectRefused(d, { type: "setup", player: "alice", map: "x" }, "ALREADY_PLAYING");
  });
});

describe("leaving before the start", () => {
  it("a guest's seat is free again; the host leaving closes the room", () => {
    const d = directRoom(3);
    d.send(join("bob"));
    d.send(join("carol"));
    d.send({ type: "leaveSeat", player: "bob" });
    expect(seatRows(d)[1]).toEqual([1, null, false, false]);
    expect(d.send(join("dave")).at(-1)).toEqual({ type: "reply", value: { room: "QWERTY", side: 1 } });
    const effects = d.send({ type: "leaveSeat", player: "alice" });
    expect(effects).toEqual([
      { type: "push", to: ["dave", "carol"], frame: expect.objectContaining({ ended: true }) },
      { type: "reply" },
      { type: "stop" },
    ]);
  });

  it("a guest leaving who was the last not ready starts the match", () => {
    const d = directRoom(3);
    d.send(join("bob"));
    d.send({ type: "ready", player: "alice", ready: true });
    d.send({ type: "leaveSeat", player: "bob" });
    expect(d.state.phase).toBe("playing");
  });
});
