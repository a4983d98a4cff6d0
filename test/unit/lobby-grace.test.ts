import { describe, expect, it } from "vitest";
import { lobbyFrame, lobbyIdle } from "../../actors/lobby/index.ts";
import { KEY, lobbyOf, roster, T0 } from "./support/lobby-driver.ts";
import type { LobbyOptions } from "../../actors/lobby/index.ts";

function playing(players: readonly string[], options: Partial<LobbyOptions> = {}) {
  const d = lobbyOf(players, options);
  d.send({ type: "start", player: players[0], mode: "ffa" });
  return Object.assign(d, { room: d.state.room!.code });
}

describe("rejoin during a room (SPEC §1 Rejoin)", () => {
  it("a member who drops during a room keeps its place for the reconnect grace", () => {
    const d = playing(["alice", "bob"]);
    const effects = d.send({ type: "connection", player: "bob", connected: false });
    expect(roster(d.state)).toEqual([
      ["alice", 1, 0, true, true],
      ["bob", 2, 1, false, true],
    ]);
    expect(effects).toEqual([
      { type: "timer", name: "grace:bob", at: T0 + 30_000, kind: "grace" },
      { type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) },
      { type: "reply", value: { member: true } },
    ]);
    expect(lobbyIdle(d.state)).toBe(false);
  });

  it("reconnecting within the grace (by join) puts it back with the current state", () => {
    const d = playing(["alice", "bob"]);
    d.send({ type: "connection", player: "bob", connected: false });
    d.ctx.advance(29_000);
    const effects = d.send({ type: "join", player: { id: "bob", name: "Bob" } });
    expect(roster(d.state)).toEqual([
      ["alice", 1, 0, true, true],
      ["bob", 2, 1, true, true],
    ]);
    expect(effects).toEqual([
      { type: "cancelTimer", name: "grace:bob" },
      { type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) },
      { type: "reply", value: { code: "ABC123" } },
    ]);
    expect(lobbyIdle(d.state)).toBe(true);
  });

  it("reconnecting by a connection message does the same", () => {
    const d = playing(["alice", "bob"]);
    d.send({ type: "connection", player: "bob", connected: false });
    const effects = d.send({ type: "connection", player: "bob", connected: true });
    expect(d.state.members[1]?.connected).toBe(true);
    expect(effects).toEqual([
      { type: "cancelTimer", name: "grace:bob" },
      { type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) },
      // Seated in the running room: the room hears it too (it may live on another node).
      {
        type: "tell",
        to: `room/${d.state.room!.code}`,
        message: { type: "connection", player: "bob", connected: true },
      },
      { type: "reply", value: { member: true } },
    ]);
  });

  it("a dropped host keeps the role; when its grace runs out it leaves and the next connected member hosts", () => {
    const d = playing(["alice", "bob", "carol"]);
    d.send({ type: "connection", player: "alice", connected: false });
    d.send({ type: "connection", player: "bob", connected: false });
    expect(d.state.host).toBe("alice");
    d.ctx.advance(30_000);
    const effects = d.fire("grace:alice");
    expect(d.state.host).toBe("carol");
    expect(roster(d.state).map(([p]) => p)).toEqual(["bob", "carol"]);
    expect(effects).toEqual([
      { type: "tell", to: "player/alice", message: { type: "left", lobby: KEY } },
      { type: "tell", to: `room/${d.room}`, message: { type: "leaveSeat", player: "alice" } },
      { type: "push", to: ["bob", "carol"], frame: lobbyFrame(d.state) },
    ]);
  });

  it("when every member drops at once the lobby waits for the graces, then closes and ends its room", () => {
    const d = playing(["alice", "bob"]);
    d.send({ type: "connection", player: "alice", connected: false });
    d.ctx.advance(1000);
    d.send({ type: "connection", player: "bob", connected: false });
    expect(d.state.members).toHaveLength(2);
    d.ctx.advance(29_000);
    const first = d.fire("grace:alice");
    expect(first.some((e) => e.type === "stop")).toBe(false);
    expect(d.state.host).toBe("bob");
    d.ctx.advance(1000);
    expect(d.fire("grace:bob")).toEqual([
      { type: "tell", to: "player/bob", message: { type: "left", lobby: KEY } },
      { type: "tell", to: `room/${d.room}`, message: { type: "end" } },
      { type: "stop" },
    ]);
  });

  it("the room grace applies in a room even when the lobby grace is 0", () => {
    const d = playing(["alice", "bob"], { lobbyGraceSeconds: 0, reconnectGraceSeconds: 45 });
    const effects = d.send({ type: "connection", player: "bob", connected: false });
    expect(effects[0]).toEqual({ type: "timer", name: "grace:bob", at: T0 + 45_000, kind: "grace" });
    expect(d.state.members).toHaveLength(2);
  });
});

describe("disconnects outside a room (SPEC §1 Disconnects)", () => {
  it("a member keeps its place, disconnected, for lobbyGraceSeconds (default 10), then leaves", () => {
    const d = lobbyOf(["alice", "bob"]);
    const drop = d.send({ type: "connection", player: "bob", connected: false });
    expect(drop).toEqual([
      { type: "timer", name: "grace:bob", at: T0 + 10_000, kind: "grace" },
      { type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) },
      { type: "reply", value: { member: true } },
    ]);
    d.ctx.advance(10_000);
    const expiry = d.fire("grace:bob");
    expect(roster(d.state).map(([p]) => p)).toEqual(["alice"]);
    expect(expiry).toEqual([
      { type: "tell", to: "player/bob", message: { type: "left", lobby: KEY } },
      { type: "push", to: ["alice"], frame: lobbyFrame(d.state) },
    ]);
  });

  it("lobbyGraceSeconds 0 gives the seed's behaviour: the member leaves at once", () => {
    const d = lobbyOf(["alice", "bob"], { lobbyGraceSeconds: 0 });
    const effects = d.send({ type: "connection", player: "alice", connected: false });
    expect(d.state.host).toBe("bob");
    expect(effects).toEqual([
      { type: "cancelTimer", name: "grace:alice" },
      { type: "tell", to: "player/alice", message: { type: "left", lobby: KEY } },
      { type: "push", to: ["bob"], frame: lobbyFrame(d.state) },
      { type: "reply", value: { member: true } },
    ]);
  });

  it("a member who leaves while away has its grace cancelled", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "connection", player: "bob", connected: false });
    expect(d.send({ type: "leave", player: "bob" }).slice(0, 2)).toEqual([
      { type: "cancelTimer", name: "grace:bob" },
      { type: "tell", to: "player/bob", message: { type: "left", lobby: KEY } },
    ]);
  });

  it("repeated or unknown connection reports change nothing; a resumed session gets the state", () => {
    const d = lobbyOf(["alice", "bob"]);
    const before = d.state;
    // The answer says the player is no member: a gateway that resumed it there on the client's word unbinds it.
    expect(d.send({ type: "connection", player: "zed", connected: false })).toEqual([
      { type: "reply", value: { member: false } },
    ]);
    expect(d.send({ type: "connection", player: "bob", connected: true })).toEqual([
      // A migration's arrival window, if one is open, is closed (cancelling none changes nothing).
      { type: "cancelTimer", name: "grace:bob" },
      { type: "push", to: ["bob"], frame: lobbyFrame(before) },
      { type: "reply", value: { member: true } },
    ]);
    expect(d.state).toBe(before);
    d.send({ type: "connection", player: "bob", connected: false });
    const away = d.state;
    expect(d.send({ type: "connection", player: "bob", connected: false })).toEqual([
      { type: "reply", value: { member: true } },
    ]);
    expect(d.state).toBe(away);
  });
});

describe("restored after failover or migration (SPEC §1: a system-caused disconnect costs nobody a seat)", () => {
  it("members whose sessions are elsewhere keep their seats and get a fresh full grace, even with lobby grace 0", () => {
    const d = lobbyOf(["alice", "bob", "carol"], { lobbyGraceSeconds: 0 });
    d.ctx.advance(60_000);
    const effects = d.send({ type: "restored", reason: "failover", connected: ["alice"] });
    expect(roster(d.state).map(([p, , , connected]) => [p, connected])).toEqual([
      ["alice", true],
      ["bob", false],
      ["carol", false],
    ]);
    expect(d.state.host).toBe("alice");
    const now = T0 + 60_000;
    // A failover's absent members keep their seats for failoverGraceSeconds (60 by default): their SDK
    // may take its liveness (45 s) to leave a node that went silent without closing their sockets.
    expect(effects).toEqual([
      // A member here has no grace running (an arrival window written before the failover is closed).
      { type: "cancelTimer", name: "grace:alice" },
      { type: "timer", name: "grace:bob", at: now + 60_000, kind: "grace" },
      { type: "timer", name: "grace:carol", at: now + 60_000, kind: "grace" },
      { type: "push", to: ["alice", "bob", "carol"], frame: lobbyFrame(d.state) },
    ]);
  });

  it("after a migration a member away gets the lobby's own grace; failoverGraceSeconds sets the failover's", () => {
    const moved = lobbyOf(["alice", "bob"]);
    moved.send({ type: "connection", player: "bob", connected: false });
    expect(moved.send({ type: "restored", reason: "migration", connected: ["alice"] })[1]).toEqual({
      type: "timer",
      name: "grace:bob",
      at: T0 + 10_000,
      kind: "grace",
    });
    const short = lobbyOf(["alice", "bob"], { failoverGraceSeconds: 5 });
    // Never shorter than the lobby grace the member would have had anyway.
    expect(short.send({ type: "restored", reason: "failover", connected: ["alice"] })[1]).toEqual({
      type: "timer",
      name: "grace:bob",
      at: T0 + 10_000,
      kind: "grace",
    });
  });

  it("after a migration a member connected to the old node stays connected while it moves over", () => {
    // Make before break (docs/fleet.md): the member's SDK opens its socket here while the old one serves.
    const d = lobbyOf(["alice", "bob", "carol"], { lobbyGraceSeconds: 0 });
    const before = d.state;
    const effects = d.send({ type: "restored", reason: "migration", connected: ["alice"] });
    expect(d.state).toBe(before);
    expect(effects).toEqual([
      { type: "cancelTimer", name: "grace:alice" },
      // Their arrival windows: the grace timer of a member who counts as connected.
      { type: "timer", name: "grace:bob", at: T0 + 15_000, kind: "grace" },
      { type: "timer", name: "grace:carol", at: T0 + 15_000, kind: "grace" },
      { type: "push", to: ["alice", "bob", "carol"], frame: lobbyFrame(before) },
    ]);
    expect(lobbyIdle(d.state)).toBe(true);
    // Bob arrives: its window closes, and nothing else changes (so nothing is written before the push).
    expect(d.send({ type: "connection", player: "bob", connected: true })[0]).toEqual({
      type: "cancelTimer",
      name: "grace:bob",
    });
    expect(d.state).toBe(before);
    // Carol never does (her socket dropped before she moved over): away, with a restore's full grace.
    d.ctx.advance(15_000);
    const expired = d.fire("grace:carol");
    expect(roster(d.state).map(([p, , , connected]) => [p, connected])).toEqual([
      ["alice", true],
      ["bob", true],
      ["carol", false],
    ]);
    expect(expired).toEqual([
      { type: "timer", name: "grace:carol", at: T0 + 45_000, kind: "grace" },
      { type: "push", to: ["alice", "bob", "carol"], frame: lobbyFrame(d.state) },
    ]);
    // Her grace then runs as any other: she leaves at its end, keeping her seat until then.
    d.ctx.advance(30_000);
    d.fire("grace:carol");
    expect(roster(d.state).map(([p]) => p)).toEqual(["alice", "bob"]);
  });

  it("a member who leaves, or joins again, while moving over closes its arrival window", () => {
    const left = lobbyOf(["alice", "bob"]);
    left.send({ type: "restored", reason: "migration", connected: ["alice"] });
    expect(left.send({ type: "leave", player: "bob" })[0]).toEqual({
      type: "cancelTimer",
      name: "grace:bob",
    });
    const rejoined = lobbyOf(["alice", "bob"]);
    rejoined.send({ type: "restored", reason: "migration", connected: ["alice"] });
    expect(rejoined.send({ type: "join", player: { id: "bob", name: "Bob" } })[0]).toEqual({
      type: "cancelTimer",
      name: "grace:bob",
    });
  });

  it("the host keeps the role; a room seat gets the room grace; a member back here is reconnected", () => {
    // A failover (a lobby whose room runs does not migrate), whose own grace is shorter than the room's.
    const d = playing(["alice", "bob"], { failoverGraceSeconds: 5 });
    d.send({ type: "connection", player: "bob", connected: false });
    d.ctx.advance(20_000);
    const effects = d.send({ type: "restored", reason: "failover", connected: ["bob"] });
    expect(d.state.host).toBe("alice");
    expect(roster(d.state)).toEqual([
      ["alice", 1, 0, false, true],
      ["bob", 2, 1, true, true],
    ]);
    expect(effects).toEqual([
      { type: "timer", name: "grace:alice", at: T0 + 50_000, kind: "grace" },
      { type: "cancelTimer", name: "grace:bob" },
      { type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) },
    ]);
  });

  it("a member already away gets a fresh grace, not the rest of the old one", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "connection", player: "bob", connected: false });
    d.ctx.advance(9_000);
    const effects = d.send({ type: "restored", reason: "failover", connected: ["alice"] });
    expect(effects[1]).toEqual({ type: "timer", name: "grace:bob", at: T0 + 69_000, kind: "grace" });
  });

  it("a restore that finds everyone here changes nothing but resends the state", () => {
    const d = lobbyOf(["alice", "bob"]);
    const before = d.state;
    expect(d.send({ type: "restored", reason: "migration", connected: ["alice", "bob"] })).toEqual([
      { type: "cancelTimer", name: "grace:alice" },
      { type: "cancelTimer", name: "grace:bob" },
      { type: "push", to: ["alice", "bob"], frame: lobbyFrame(before) },
    ]);
    expect(d.state).toBe(before);
  });

  it("so its push waits for no write (volatile), nor does a member's connection that finds it connected", () => {
    // A public lobby: the kind adds its listing to a restore, and must keep the transition volatile.
    const d = lobbyOf(["alice", "bob"], {}, true);
    const handle = (message: unknown) => d.kind.handle(d.state, d.kind.parse(message)!, d.ctx);
    const allHere = handle({ type: "restored", reason: "failover", connected: ["zed", "alice", "bob"] });
    expect(allHere.state).toBe(d.state);
    expect(allHere.volatile).toBe(true);
    expect(allHere.effects.some((e) => e.type === "push")).toBe(true);
    expect(allHere.effects.some((e) => e.type === "tell")).toBe(true); // the listing, said again
    const back = handle({ type: "connection", player: "bob", connected: true });
    expect(back.state).toBe(d.state);
    expect(back.volatile).toBe(true);
    // A member away changes the state: written before anything is said.
    expect(handle({ type: "restored", reason: "failover", connected: ["alice"] }).volatile).not.toBe(true);
    d.send({ type: "connection", player: "bob", connected: false });
    expect(handle({ type: "connection", player: "bob", connected: true }).volatile).not.toBe(true);
  });

  it("a restored message with a list that is not of player ids is refused", () => {
    const d = lobbyOf(["alice"]);
    for (const connected of [[""], [7], "alice", ["x".repeat(129)], null])
      expect(d.kind.parse({ type: "restored", reason: "failover", connected })).toBeUndefined();
    expect(d.kind.parse({ type: "restored", reason: "failover", connected: [], extra: 1 })).toBeUndefined();
    expect(d.kind.parse({ type: "timer", name: "" })).toBeUndefined();
  });
});

describe("a member away when a room starts (SPEC §1 Disconnects; found by foyer chaos, seed 101)", () => {
  it("keeps its lobby grace through the room: the room's end does not take it out", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "connection", player: "bob", connected: false });
    d.send({ type: "start", player: "alice", mode: "ffa" });
    const room = d.state.room!.code;
    // Seated in the room (it may come back to it), but for the lobby it is away on its lobby grace.
    expect(d.state.room!.seats.map((s) => s.player)).toContain("bob");
    expect(d.state.members.map((m) => [m.player, m.inRoom])).toEqual([
      ["alice", true],
      ["bob", false],
    ]);
    d.send({ type: "return", player: "alice" });
    d.send({ type: "roomEnded", room });
    expect(d.state.members.map((m) => m.player)).toEqual(["alice", "bob"]);
    // It comes back within its lobby grace and is still a member.
    d.ctx.advance(5_000);
    d.send({ type: "connection", player: "bob", connected: true });
    expect(d.state.members.map((m) => [m.player, m.connected])).toEqual([
      ["alice", true],
      ["bob", true],
    ]);
  });
});
