import { describe, expect, it } from "vitest";
import { defaultLobbyOptions, lobbyKind } from "../../actors/lobby/index.ts";
import { directoryKind } from "../../actors/directory/index.ts";
import { playerKind } from "../../actors/player/index.ts";
import { roomKind } from "../../actors/room/index.ts";
import { createHarness } from "../../actors/runtime/harness.ts";
import type { Effect } from "../../actors/runtime/types.ts";
import { expectRefused, lobby, lobbyOf, pushes, T0 } from "./support/lobby-driver.ts";
import { lobbyInit, roomDriver } from "./support/room-driver.ts";

/** The studio's events (docs/server-api.md): what the kinds emit, and how the runtime publishes them. */

function names(events: readonly Effect[]): string[] {
  return events.map((e) => (e.type === "event" ? e.name : `not an event: ${e.type}`));
}

function dataOf(events: readonly Effect[], name: string): Record<string, unknown>[] {
  return events.flatMap((e) => (e.type === "event" && e.name === name ? [e.data] : []));
}

describe("lobby events", () => {
  it("created, started, player left (with its reason) and ended, each once", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    expect(dataOf(d.events, "lobby.created")).toEqual([
      { code: "ABC123", players: ["alice"], host: "alice", public: false, metadata: null },
    ]);
    d.send({ type: "start", player: "alice", mode: "duo" });
    expect(dataOf(d.events, "lobby.started")).toEqual([
      { code: "ABC123", players: ["alice", "bob", "carol"], room: expect.any(String), mode: "duo" },
    ]);
    d.send({ type: "leave", player: "carol" });
    d.send({ type: "leave", player: "carol" }); // already out: no second event
    d.send({ type: "kick", target: "bob" });
    d.send({ type: "leave", player: "alice" });
    expect(names(d.events)).toEqual([
      "lobby.created",
      "lobby.started",
      "player.left",
      "player.left",
      "player.left",
      "lobby.ended",
    ]);
    expect(dataOf(d.events, "player.left")).toEqual([
      { code: "ABC123", players: ["alice", "bob"], player: "carol", reason: "left" },
      { code: "ABC123", players: ["alice"], player: "bob", reason: "kicked" },
      { code: "ABC123", players: [], player: "alice", reason: "left" },
    ]);
    expect(dataOf(d.events, "lobby.ended")).toEqual([{ code: "ABC123", players: [] }]);
  });

  it("a member whose grace runs out leaves with reason timeout", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "connection", player: "bob", connected: false });
    d.ctx.now = T0 + defaultLobbyOptions.lobbyGraceSeconds * 1000;
    d.fire("grace:bob");
    expect(dataOf(d.events, "player.left")).toEqual([
      { code: "ABC123", players: ["alice"], player: "bob", reason: "timeout" },
    ]);
  });

  it("a refusal or a read emits nothing", () => {
    const d = lobbyOf(["alice", "bob"]);
    const before = d.events.length;
    expectRefused(d, { type: "kick", target: "zed" }, "NOT_IN_LOBBY");
    expectRefused(d, { type: "start", player: "bob", mode: "duo" }, "NOT_HOST");
    expect(d.send({ type: "view" })).toEqual([
      { type: "reply", value: expect.objectContaining({ code: "ABC123" }) },
    ]);
    expect(d.events).toHaveLength(before);
  });
});

describe("kick", () => {
  it("takes the member out, tells its registry, and sends it the state without it", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    const effects = d.send({ type: "kick", target: "bob" });
    expect(d.state.members.map((m) => m.player)).toEqual(["alice", "carol"]);
    expect(effects).toContainEqual({
      type: "tell",
      to: "player/bob",
      message: { type: "left", lobby: "lobby/ABC123", kicked: true },
    });
    const sent = pushes(effects);
    expect(sent.map((p) => p.to)).toEqual([["alice", "carol"], ["bob"], ["bob"]]);
    expect(sent[1]?.frame).toEqual({ type: "kicked", code: "ABC123", reason: null, banned: false });
    expect(sent[2]?.frame).toMatchObject({
      type: "lobby",
      members: [{ player: "alice" }, { player: "carol" }],
    });
    expect(effects.at(-1)).toEqual({ type: "reply" });
  });

  it("kicking the host hands the role on; kicking the last member closes the lobby", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "kick", target: "alice" });
    expect(d.state.host).toBe("bob");
    const last = d.send({ type: "kick", target: "bob" });
    expect(last.at(-1)).toEqual({ type: "stop" });
    expect(pushes(last)).toEqual([
      { to: ["bob"], frame: expect.objectContaining({ type: "kicked" }) },
      { to: ["bob"], frame: expect.objectContaining({ members: [] }) },
    ]);
  });
});

describe("a lobby made for players", () => {
  it("seats every player away, with a grace of reserveSeconds, and tells each registry", () => {
    const kind = lobbyKind(defaultLobbyOptions);
    const d = lobby();
    const created = kind.create(
      {
        code: "ABC123",
        host: { id: "alice", name: "Alice" },
        members: [
          { id: "bob", name: "Bob" },
          { id: "alice", name: "Alice" },
        ],
        reserveSeconds: 90,
      },
      d.ctx,
    );
    expect(created.state.members.map((m) => [m.player, m.connected])).toEqual([
      ["alice", false],
      ["bob", false],
    ]);
    expect(created.state.host).toBe("alice");
    const timers = created.effects.filter((e) => e.type === "timer");
    expect(timers).toEqual([
      { type: "timer", name: "grace:alice", at: T0 + 90_000, kind: "grace" },
      { type: "timer", name: "grace:bob", at: T0 + 90_000, kind: "grace" },
    ]);
    const tells = created.effects.flatMap((e) => (e.type === "tell" ? [e.to] : []));
    expect(tells).toEqual(["player/alice", "player/bob"]);
    expect(dataOf(created.effects, "lobby.created")).toEqual([
      { code: "ABC123", players: ["alice", "bob"], host: "alice", public: false, metadata: null },
    ]);
  });

  it("a player who connects is back; one who never does leaves when its reserve runs out", () => {
    const kind = lobbyKind(defaultLobbyOptions);
    const d = lobby();
    const created = kind.create(
      {
        code: "ABC123",
        host: { id: "alice", name: "A" },
        members: [{ id: "bob", name: "B" }],
        reserveSeconds: 30,
      },
      d.ctx,
    );
    d.state = created.state;
    d.send({ type: "connection", player: "alice", connected: true });
    expect(d.state.members.map((m) => [m.player, m.connected])).toEqual([
      ["alice", true],
      ["bob", false],
    ]);
    d.ctx.now = T0 + 30_000;
    d.fire("grace:bob");
    expect(d.state.members.map((m) => m.player)).toEqual(["alice"]);
    expect(dataOf(d.events, "player.left")).toEqual([
      { code: "ABC123", players: ["alice"], player: "bob", reason: "timeout" },
    ]);
  });
});

describe("room events", () => {
  it("the backend's end closes the room with its result; the lobby is told", () => {
    const d = roomDriver(lobbyInit);
    const effects = d.send({ type: "serverEnd", result: { winner: "alice", score: [3, 1] } });
    expect(effects).toContainEqual({
      type: "tell",
      to: "lobby/ABC123",
      message: { type: "roomEnded", room: "QWERTY" },
    });
    expect(effects.at(-1)).toEqual({ type: "stop" });
    expect(dataOf(d.events, "room.ended")).toEqual([
      {
        code: "QWERTY",
        lobby: "lobby/ABC123",
        players: ["alice", "bob", "carol"],
        mode: "duo",
        reason: "server",
        result: { winner: "alice", score: [3, 1] },
      },
    ]);
  });

  it("a player's finish ends it with no result; a result that is not a JSON object is not a message", () => {
    const d = roomDriver(lobbyInit);
    expect(d.kind.parse({ type: "serverEnd", result: [1, 2] })).toBeUndefined();
    expect(d.kind.parse({ type: "serverEnd", result: { big: "x".repeat(20_000) } })).toBeUndefined();
    d.send({ type: "ready", player: "alice", ready: true });
    d.send({ type: "ready", player: "bob", ready: true });
    d.send({ type: "ready", player: "carol", ready: true });
    d.send({ type: "finish", player: "bob" });
    expect(dataOf(d.events, "room.ended")).toMatchObject([{ reason: "finished", result: null }]);
  });
});

describe("the runtime publishes events", () => {
  function cluster() {
    return createHarness({
      kinds: [
        { kind: lobbyKind(defaultLobbyOptions) as never },
        { kind: roomKind() as never },
        { kind: playerKind() as never, createOnDemand: true },
        { kind: directoryKind() as never, createOnDemand: true },
      ],
      seed: 5,
    });
  }

  it("stamped with key, epoch, the seq of their change's frame and an index; frames keep consecutive numbers", async () => {
    const h = cluster();
    await h.system.spawn("lobby/ABC123", { code: "ABC123", host: { id: "alice", name: "Alice" } });
    await h.settle();
    await h.system.ask("lobby/ABC123", { type: "join", player: { id: "bob", name: "Bob" } });
    await h.system.ask("lobby/ABC123", { type: "leave", player: "bob" });
    await h.settle();
    const lobbyFrames = h.framesOf("alice").filter((f) => f.key === "lobby/ABC123");
    expect(lobbyFrames.map((f) => f.seq)).toEqual([1, 2, 3]);
    // The last member leaves: the change pushes no frame, so its two events take a number of their own.
    await h.system.ask("lobby/ABC123", { type: "leave", player: "alice" });
    await h.settle();
    expect(h.published.map((e) => [e.name, e.key, e.epoch, e.seq, e.index])).toEqual([
      ["lobby.created", "lobby/ABC123", 1, 1, 0],
      ["player.left", "lobby/ABC123", 1, 3, 0],
      ["player.left", "lobby/ABC123", 1, 4, 0],
      ["lobby.ended", "lobby/ABC123", 1, 4, 1],
    ]);
    expect(h.published[1]).toMatchObject({ data: { player: "bob", reason: "left" }, at: h.clock.now() });
  });

  it("a change the store refuses publishes nothing", async () => {
    const h = cluster();
    await h.system.spawn("lobby/ABC123", { code: "ABC123", host: { id: "alice", name: "Alice" } });
    await h.settle();
    await h.system.ask("lobby/ABC123", { type: "join", player: { id: "bob", name: "Bob" } });
    await h.settle();
    const before = h.published.length;
    h.store.failWith = "unavailable";
    const left = await h.system.ask("lobby/ABC123", { type: "leave", player: "bob" });
    expect(left).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    expect(h.published).toHaveLength(before);
    h.store.failWith = undefined;
    expect(await h.system.ask("lobby/ABC123", { type: "leave", player: "bob" })).toEqual({ ok: true });
    await h.settle();
    expect(h.published.slice(before).map((e) => [e.name, e.data.player])).toEqual([["player.left", "bob"]]);
  });
});
