import { describe, expect, it } from "vitest";
import { lobbyFrame, lobbyIdle } from "../../actors/lobby/index.ts";
import { expectRefused, KEY, lobbyOf, roster, T0 } from "./support/lobby-driver.ts";

function playing(players: readonly string[], mode = "duo") {
  const d = lobbyOf(players);
  d.send({ type: "start", player: players[0], mode });
  const room = d.state.room!.code;
  return Object.assign(d, { room });
}

describe("after the room (SPEC §1)", () => {
  it("room end: returnAfterEndSeconds later everyone is back in the lobby, not playing", () => {
    const d = playing(["alice", "bob"]);
    const ended = d.send({ type: "roomEnded", room: d.room });
    expect(ended).toEqual([
      { type: "timer", name: "return", at: T0 + 5000, kind: "game" },
      { type: "reply" },
    ]);
    expect(d.state.room?.ended).toBe(true);
    expect(lobbyFrame(d.state)).toMatchObject({ playing: true });
    expect(lobbyIdle(d.state)).toBe(false);
    expectRefused(d, { type: "start", player: "alice", mode: "duo" }, "ALREADY_PLAYING");

    d.ctx.advance(5000);
    const back = d.fire("return");
    expect(d.state.room).toBeNull();
    expect(roster(d.state)).toEqual([
      ["alice", 1, 0, true, false],
      ["bob", 2, 1, true, false],
    ]);
    expect(back).toEqual([{ type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) }]);
    expect(lobbyFrame(d.state)).toMatchObject({ playing: false, room: null });
    expect(lobbyIdle(d.state)).toBe(true);
    // The next room can start once none is playing.
    expect(d.send({ type: "start", player: "alice", mode: "duo" })).toContainEqual(
      expect.objectContaining({ type: "reply", value: { room: d.state.room?.code } }),
    );
  });

  it("returnAfterEndSeconds is an option", () => {
    const d = lobbyOf(["alice"], { returnAfterEndSeconds: 12 });
    d.send({ type: "start", player: "alice", mode: "duel" });
    const effects = d.send({ type: "roomEnded", room: d.state.room!.code });
    expect(effects[0]).toEqual({ type: "timer", name: "return", at: T0 + 12_000, kind: "game" });
  });

  it("a roomEnded about another room, or repeated, changes nothing", () => {
    const d = playing(["alice", "bob"]);
    const before = d.state;
    expect(d.send({ type: "roomEnded", room: "ZZZZZZ" })).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(before);
    d.send({ type: "roomEnded", room: d.room });
    const ended = d.state;
    expect(d.send({ type: "roomEnded", room: d.room })).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(ended);
  });

  it("a stale return timer changes nothing", () => {
    const d = playing(["alice", "bob"]);
    const before = d.state;
    expect(d.fire("return")).toEqual([]);
    expect(d.state).toBe(before);
  });

  it("host returns: the room ends for everyone at once", () => {
    const d = playing(["alice", "bob", "carol"]);
    const effects = d.send({ type: "return", player: "alice" });
    expect(d.state.room).toBeNull();
    expect(d.state.members.every((m) => !m.inRoom)).toBe(true);
    expect(effects).toEqual([
      { type: "tell", to: `room/${d.room}`, message: { type: "end" } },
      { type: "push", to: ["alice", "bob", "carol"], frame: lobbyFrame(d.state) },
      { type: "reply" },
    ]);
  });

  it("host returns after the room ended: the pending return is cancelled, nothing is told to the room", () => {
    const d = playing(["alice", "bob"]);
    d.send({ type: "roomEnded", room: d.room });
    const effects = d.send({ type: "return", player: "alice" });
    expect(d.state.room).toBeNull();
    expect(effects).toEqual([
      { type: "cancelTimer", name: "return" },
      { type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) },
      { type: "reply" },
    ]);
  });

  it("a guest returns: only that player steps out and the room plays on", () => {
    const d = playing(["alice", "bob", "carol"]);
    const effects = d.send({ type: "return", player: "bob" });
    expect(d.state.room?.code).toBe(d.room);
    expect(roster(d.state)).toEqual([
      ["alice", 1, 0, true, true],
      ["bob", 2, 1, true, false],
      ["carol", 3, 0, true, true],
    ]);
    expect(effects).toEqual([
      { type: "tell", to: `room/${d.room}`, message: { type: "leaveSeat", player: "bob" } },
      { type: "push", to: ["alice", "bob", "carol"], frame: lobbyFrame(d.state) },
      { type: "reply" },
    ]);
    const out = d.state;
    expect(d.send({ type: "return", player: "bob" })).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(out);
  });

  it("return with no room is NOT_PLAYING; from a stranger NOT_IN_LOBBY", () => {
    const d = lobbyOf(["alice", "bob"]);
    expectRefused(d, { type: "return", player: "alice" }, "NOT_PLAYING");
    expectRefused(d, { type: "return", player: "zed" }, "NOT_IN_LOBBY");
  });

  it("members still away when the room ends leave then; those who stepped out keep their lobby grace", () => {
    const d = playing(["alice", "bob", "carol"]);
    d.send({ type: "return", player: "bob" });
    d.send({ type: "connection", player: "bob", connected: false });
    d.send({ type: "connection", player: "carol", connected: false });
    const effects = d.send({ type: "roomEnded", room: d.room });
    expect(roster(d.state).map(([p, , , connected]) => [p, connected])).toEqual([
      ["alice", true],
      ["bob", false],
    ]);
    expect(effects).toEqual([
      { type: "cancelTimer", name: "grace:carol" },
      { type: "tell", to: "player/carol", message: { type: "left", lobby: KEY } },
      { type: "timer", name: "return", at: T0 + 5000, kind: "game" },
      { type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) },
      { type: "reply" },
    ]);
  });

  it("a member who drops after the room ended is on its lobby grace and survives the return", () => {
    const d = playing(["alice", "bob"]);
    d.send({ type: "roomEnded", room: d.room });
    d.ctx.advance(1000);
    expect(d.send({ type: "connection", player: "bob", connected: false })[0]).toEqual({
      type: "timer",
      name: "grace:bob",
      at: T0 + 11_000,
      kind: "grace",
    });
    d.ctx.advance(4000);
    const back = d.fire("return");
    expect(roster(d.state)).toEqual([
      ["alice", 1, 0, true, false],
      ["bob", 2, 1, false, false],
    ]);
    expect(back).toEqual([{ type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) }]);
  });

  it("a member seated in the running room who comes back is reported back to the room too", () => {
    // After a failover the room may live on another node than the lobby, where the member's session is
    // not: only the lobby hears the member come back, and the room waits for every seat.
    const d = playing(["alice", "bob"]);
    d.send({ type: "connection", player: "bob", connected: false });
    const back = {
      type: "tell",
      to: `room/${d.room}`,
      message: { type: "connection", player: "bob", connected: true },
    };
    expect(d.send({ type: "connection", player: "bob", connected: true })).toContainEqual(back);
    // A session resumed without the lobby noticing a drop, too.
    expect(d.send({ type: "connection", player: "bob", connected: true })).toContainEqual(back);
    // Not once the room has ended.
    d.send({ type: "roomEnded", room: d.room });
    expect(d.send({ type: "connection", player: "bob", connected: true })).not.toContainEqual(back);
  });

  it("its room restored on a new node: the members connected here and seated in it are reported back", () => {
    const d = playing(["alice", "bob", "carol"]);
    d.send({ type: "connection", player: "carol", connected: false });
    const tell = (player: string) => ({
      type: "tell",
      to: `room/${d.room}`,
      message: { type: "connection", player, connected: true },
    });
    expect(d.send({ type: "roomRestored", room: d.room })).toEqual([
      tell("alice"),
      tell("bob"),
      { type: "reply" },
    ]);
    // Another room's word, or one the lobby no longer plays in, changes nothing.
    expect(d.send({ type: "roomRestored", room: "ZZZZZZ" })).toEqual([{ type: "reply" }]);
    d.send({ type: "roomEnded", room: d.room });
    expect(d.send({ type: "roomRestored", room: d.room })).toEqual([{ type: "reply" }]);
  });

  it("the host returning also ends the room for members who are away: they leave", () => {
    const d = playing(["alice", "bob"]);
    d.send({ type: "connection", player: "bob", connected: false });
    const effects = d.send({ type: "return", player: "alice" });
    expect(roster(d.state)).toEqual([["alice", 1, 0, true, false]]);
    expect(effects).toEqual([
      { type: "tell", to: `room/${d.room}`, message: { type: "end" } },
      { type: "cancelTimer", name: "grace:bob" },
      { type: "tell", to: "player/bob", message: { type: "left", lobby: KEY } },
      { type: "push", to: ["alice"], frame: lobbyFrame(d.state) },
      { type: "reply" },
    ]);
  });

  it("a room that ends with every member away closes the lobby", () => {
    const d = playing(["alice", "bob"]);
    d.send({ type: "connection", player: "alice", connected: false });
    d.send({ type: "connection", player: "bob", connected: false });
    const effects = d.send({ type: "roomEnded", room: d.room });
    expect(d.state.members).toEqual([]);
    expect(effects).toEqual([
      { type: "cancelTimer", name: "grace:alice" },
      { type: "tell", to: "player/alice", message: { type: "left", lobby: KEY } },
      { type: "cancelTimer", name: "grace:bob" },
      { type: "tell", to: "player/bob", message: { type: "left", lobby: KEY } },
      { type: "reply" },
      { type: "stop" },
    ]);
  });
});
