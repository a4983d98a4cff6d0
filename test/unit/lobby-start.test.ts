import { describe, expect, it } from "vitest";
import { lobbyFrame } from "../../actors/lobby/index.ts";
import { drawCode } from "../../actors/common/index.ts";
import { seededRandom } from "../../actors/runtime/seeded-random.ts";
import { expectRefused, KEY, lobbyOf, roster } from "./support/lobby-driver.ts";

/** The first room code the test context (seed 7) draws. */
const firstRoomCode = drawCode(seededRandom(7), 6, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");

describe("lobby start (SPEC §1 Start(mode))", () => {
  it("spawns the room with alternating teams, member-id seats and bots from 50; answers the room code", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    const effects = d.send({ type: "start", player: "alice", mode: "duo" });
    expect(firstRoomCode).toMatch(/^[A-Z]{6}$/);
    const seats = [
      { seat: 1, team: 0, player: "alice" },
      { seat: 2, team: 1, player: "bob" },
      { seat: 3, team: 0, player: "carol" },
      { seat: 50, team: 1, player: null },
    ];
    expect(d.state.room).toEqual({ code: firstRoomCode, mode: "duo", seats, ended: false });
    expect(roster(d.state)).toEqual([
      ["alice", 1, 0, true, true],
      ["bob", 2, 1, true, true],
      ["carol", 3, 0, true, true],
    ]);
    expect(effects).toEqual([
      {
        type: "spawn",
        key: `room/${firstRoomCode}`,
        init: { code: firstRoomCode, lobby: KEY, mode: "duo", host: "alice", seats },
        quietIfFailed: true,
      },
      { type: "push", to: ["alice", "bob", "carol"], frame: lobbyFrame(d.state) },
      { type: "reply", value: { room: firstRoomCode } },
    ]);
    expect(lobbyFrame(d.state)).toMatchObject({
      playing: true,
      room: { code: firstRoomCode, mode: "duo", seats },
    });
  });

  it("bots fill team 0 first, then team 1, counting up from botSeatIdBase", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "start", player: "alice", mode: "squad" });
    expect(d.state.room?.seats).toEqual([
      { seat: 1, team: 0, player: "alice" },
      { seat: 2, team: 1, player: "bob" },
      { seat: 50, team: 0, player: null },
      { seat: 51, team: 0, player: null },
      { seat: 52, team: 0, player: null },
      { seat: 53, team: 1, player: null },
      { seat: 54, team: 1, player: null },
      { seat: 55, team: 1, player: null },
    ]);
  });

  it("botSeatIdBase is an option", () => {
    const d = lobbyOf(["alice"], { botSeatIdBase: 100 });
    d.send({ type: "start", player: "alice", mode: "duel" });
    expect(d.state.room?.seats).toEqual([
      { seat: 1, team: 0, player: "alice" },
      { seat: 100, team: 1, player: null },
    ]);
  });

  it("a full pair of teams gets no bots; seat ids are the stable member ids", () => {
    const d = lobbyOf(["alice", "bob", "carol", "dave"]);
    d.send({ type: "leave", player: "bob" });
    d.send({ type: "join", player: { id: "erin", name: "Erin" } });
    d.send({ type: "start", player: "alice", mode: "duo" });
    expect(d.state.room?.seats).toEqual([
      { seat: 1, team: 0, player: "alice" },
      { seat: 3, team: 1, player: "carol" },
      { seat: 4, team: 0, player: "dave" },
      { seat: 5, team: 1, player: "erin" },
    ]);
  });

  it("team size 0 seats every member on alternating teams and adds no bots", () => {
    const d = lobbyOf(["alice", "bob", "carol", "dave", "erin"]);
    d.send({ type: "start", player: "alice", mode: "ffa" });
    expect(d.state.room?.seats).toEqual([
      { seat: 1, team: 0, player: "alice" },
      { seat: 2, team: 1, player: "bob" },
      { seat: 3, team: 0, player: "carol" },
      { seat: 4, team: 1, player: "dave" },
      { seat: 5, team: 0, player: "erin" },
    ]);
  });

  it("more members than 2 × team size is TOO_MANY_PLAYERS", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    expectRefused(d, { type: "start", player: "alice", mode: "duel" }, "TOO_MANY_PLAYERS");
  });

  it("a node that cannot open a room refuses UNAVAILABLE with a retry hint", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.ctx.node = { canOpenRoom: false, draining: false };
    expectRefused(d, { type: "start", player: "alice", mode: "duel" }, "UNAVAILABLE");
    const before = d.state;
    expect(d.send({ type: "start", player: "alice", mode: "duel" })).toEqual([
      {
        type: "reject",
        code: "UNAVAILABLE",
        message: "this node cannot open a room now",
        retryAfterMs: 1000,
      },
    ]);
    expect(d.state).toBe(before);
  });

  it("a draining node refuses UNAVAILABLE", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.ctx.node = { canOpenRoom: true, draining: true };
    expectRefused(d, { type: "start", player: "alice", mode: "duel" }, "UNAVAILABLE");
  });

  it("a full node still lets players join", () => {
    const d = lobbyOf(["alice"]);
    d.ctx.node = { canOpenRoom: false, draining: false };
    d.send({ type: "join", player: { id: "bob", name: "Bob" } });
    expect(d.state.members).toHaveLength(2);
  });

  it("a second start while a room is playing is ALREADY_PLAYING", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "start", player: "alice", mode: "duel" });
    expectRefused(d, { type: "start", player: "alice", mode: "duel" }, "ALREADY_PLAYING");
  });

  it("only the host may start: NOT_HOST for a guest, NOT_IN_LOBBY for a stranger", () => {
    const d = lobbyOf(["alice", "bob"]);
    expectRefused(d, { type: "start", player: "bob", mode: "duel" }, "NOT_HOST");
    expectRefused(d, { type: "start", player: "zed", mode: "duel" }, "NOT_IN_LOBBY");
  });

  it("an unknown mode is INVALID (including names of Object's own properties)", () => {
    const d = lobbyOf(["alice", "bob"]);
    expectRefused(d, { type: "start", player: "alice", mode: "polo" }, "INVALID");
    expectRefused(d, { type: "start", player: "alice", mode: "constructor" }, "INVALID");
  });

  it("modes come from the teamSizes option", () => {
    const d = lobbyOf(["alice", "bob", "carol"], { teamSizes: { trio: 3 } });
    expectRefused(d, { type: "start", player: "alice", mode: "duo" }, "INVALID");
    d.send({ type: "start", player: "alice", mode: "trio" });
    expect(d.state.room?.seats.map((s) => s.seat)).toEqual([1, 2, 3, 50, 51, 52]);
  });

  it("bot seat ids skip a member id they would collide with", () => {
    const d = lobbyOf(["alice"], { botSeatIdBase: 2 });
    d.send({ type: "join", player: { id: "bob", name: "Bob" } });
    d.send({ type: "start", player: "alice", mode: "duo" });
    expect(d.state.room?.seats.map((s) => s.seat)).toEqual([1, 2, 3, 4]);
  });
});
