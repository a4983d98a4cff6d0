import { describe, expect, it } from "vitest";
import {
  expectRefused,
  lobbyInit,
  pushed,
  roomDriver,
  startedDirectRoom,
  T0,
  turns,
} from "./support/room-driver.ts";

/** A missing player pauses the clock, the host resumes, abort ends the match, a leaver's seat goes to AI. */

const drop = (player: string) => ({ type: "connection", player, connected: false });
const back = (player: string) => ({ type: "connection", player, connected: true });

describe("a missing player pauses the clock", () => {
  it("a drop stops the turns and tells everyone who is missing", () => {
    const d = roomDriver(lobbyInit);
    d.advance(300);
    const effects = d.send(drop("bob"));
    expect(effects).toContainEqual({ type: "cancelTimer", name: "turn" });
    expect(pushed(effects, "paused")).toEqual([
      {
        to: ["alice", "bob", "carol"],
        frame: { type: "paused", reason: "missing", missing: ["bob"], turn: 3 },
      },
    ]);
    expect(pushed(effects, "room")[0]?.frame).toMatchObject({ paused: "missing" });
    expect(effects.at(-1)).toEqual({ type: "reply" });
    expect(turns(d.advance(5000))).toEqual([]);
    expect(d.state.lastTurn).toBe(3);
  });

  it("the player's return does not resume: the host does, at the next turn", () => {
    const d = roomDriver(lobbyInit);
    d.advance(300);
    d.send(drop("bob"));
    d.send(drop("carol"));
    expect(pushed(d.send(back("bob")), "paused")[0]?.frame).toMatchObject({ missing: ["carol"] });
    expectRefused(d, { type: "resume", player: "alice" }, "INVALID");
    expectRefused(d, { type: "resume", player: "bob" }, "NOT_HOST");
    expect(pushed(d.send(back("carol")), "paused")[0]?.frame).toMatchObject({ missing: [] });
    expect(turns(d.advance(1000))).toEqual([]);
    const effects = d.send({ type: "resume", player: "alice" });
    expect(pushed(effects, "resumed")).toEqual([
      { to: ["alice", "bob", "carol"], frame: { type: "resumed", turn: 4 } },
    ]);
    expect(effects).toContainEqual({ type: "timer", name: "turn", at: d.ctx.now + 100, kind: "game" });
    expect(turns(d.advance(200)).map((f) => f.turn)).toEqual([4, 5]);
  });

  it("commands sent while paused go out in the first turn after the resume", () => {
    const d = roomDriver(lobbyInit);
    d.send(drop("bob"));
    expect(d.send({ type: "command", player: "alice", data: "wait" }).at(-1)).toEqual({
      type: "reply",
      value: { turn: 1 },
    });
    d.send(back("bob"));
    d.send({ type: "resume", player: "alice" });
    expect(turns(d.advance(100))).toEqual([{ type: "turn", turn: 1, commands: [{ side: 1, data: "wait" }] }]);
  });

  it("resume with handToAi plays on without the missing players; the next turn announces their sides", () => {
    const d = roomDriver(lobbyInit);
    d.advance(100);
    d.send(drop("bob"));
    const effects = d.send({ type: "resume", player: "alice", handToAi: true });
    expect(d.state.seats.find((s) => s.seat === 2)).toMatchObject({ player: null, ai: true });
    expect(pushed(effects, "room").map((p) => p.to)).toEqual([["alice", "carol"]]);
    expect(pushed(effects, "resumed")).toHaveLength(1);
    expect(turns(d.advance(100))).toEqual([{ type: "turn", turn: 2, commands: [], ai: [2] }]);
    expect(turns(d.advance(100))).toEqual([{ type: "turn", turn: 3, commands: [] }]);
    expectRefused(d, back("bob"), "NOT_IN_LOBBY");
  });

  it("resume while the clock runs changes nothing; before the start it is NOT_PLAYING", () => {
    const d = roomDriver(lobbyInit);
    const before = d.state;
    expect(d.send({ type: "resume", player: "alice" })).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(before);
    const setup = roomDriver({
      code: "QWERTY",
      direct: true,
      host: { id: "a", name: "A" },
      seats: 2,
      mode: "m",
    });
    expectRefused(setup, { type: "resume", player: "a" }, "NOT_PLAYING");
  });

  it("a connection notice for a stranger is NOT_IN_LOBBY; a repeated one changes nothing", () => {
    const d = roomDriver(lobbyInit);
    expectRefused(d, drop("zed"), "NOT_IN_LOBBY");
    const before = d.state;
    expect(d.send(back("bob"))).toEqual([
      { type: "push", to: ["bob"], frame: expect.objectContaining({ type: "room" }) },
      { type: "reply" },
    ]);
    d.send(drop("bob"));
    const paused = d.state;
    expect(d.send(drop("bob"))).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(paused);
    expect(before).not.toBe(paused);
  });
});

describe("abort", () => {
  it("the host ends the match: everyone is told, the lobby hears roomEnded, the room stops", () => {
    const d = roomDriver(lobbyInit);
    expectRefused(d, { type: "abort", player: "bob" }, "NOT_HOST");
    expectRefused(d, { type: "abort", player: "zed" }, "NOT_IN_LOBBY");
    expect(d.send({ type: "abort", player: "alice" })).toEqual([
      { type: "push", to: ["alice", "bob", "carol"], frame: expect.objectContaining({ ended: true }) },
      { type: "tell", to: "lobby/ABC123", message: { type: "roomEnded", room: "QWERTY" } },
      { type: "reply" },
      { type: "stop" },
    ]);
  });

  it("a room created directly has no lobby to tell", () => {
    const d = startedDirectRoom(["bob"]);
    const effects = d.send({ type: "abort", player: "alice" });
    expect(effects.map((e) => e.type)).toEqual(["push", "reply", "stop"]);
  });
});

describe("leaving a started match", () => {
  it("the seat becomes AI: a seat update now, the side announced in the next turn, the match plays on", () => {
    const d = startedDirectRoom(["bob", "carol"]);
    d.advance(100);
    d.send({ type: "command", player: "bob", data: "last words" });
    const effects = d.send({ type: "leaveSeat", player: "bob" });
    expect(pushed(effects, "room")).toEqual([
      {
        to: ["alice", "carol"],
        frame: expect.objectContaining({
          seats: expect.arrayContaining([expect.objectContaining({ seat: 1, player: null, ai: true })]),
        }),
      },
    ]);
    expect(turns(d.advance(100))).toEqual([
      { type: "turn", turn: 2, commands: [{ side: 1, data: "last words" }], ai: [1] },
    ]);
    expect(pushed(d.advance(100), "turn").map((p) => p.to)).toEqual([["alice", "carol"]]);
  });

  it("the host leaving hands the role to the next connected human", () => {
    const d = startedDirectRoom(["bob", "carol"]);
    d.send(drop("bob"));
    d.send({ type: "leaveSeat", player: "alice" });
    expect(d.state.host).toBe("carol");
    expect(d.state.seats[0]).toMatchObject({ seat: 0, player: null, ai: true });
    d.send(back("bob"));
    d.send({ type: "resume", player: "carol" });
    expect(d.state.clock.status).toBe("running");
  });

  it("the one missing player leaving does not resume by itself: the host still does", () => {
    const d = startedDirectRoom(["bob"]);
    d.send(drop("bob"));
    const effects = d.send({ type: "leaveSeat", player: "bob" });
    expect(pushed(effects, "paused")[0]?.frame).toMatchObject({ missing: [] });
    expect(d.state.clock).toEqual({ status: "paused", reason: "missing" });
    d.send({ type: "resume", player: "alice" });
    expect(turns(d.advance(100))).toEqual([{ type: "turn", turn: 1, commands: [], ai: [1] }]);
    expect(d.ctx.now).toBe(T0 + 100);
  });
});
