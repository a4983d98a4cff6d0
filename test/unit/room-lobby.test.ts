import { describe, expect, it } from "vitest";
import { defaultLobbyOptions, lobbyKind } from "../../actors/lobby/index.ts";
import { playerKind } from "../../actors/player/index.ts";
import { roomKind } from "../../actors/room/index.ts";
import { createHarness } from "../../actors/runtime/harness.ts";

/** The lobby → room → lobby round trip (SPEC §1) with the relay room on the runtime. */

async function playing() {
  const h = createHarness({
    kinds: [
      { kind: lobbyKind(defaultLobbyOptions) as never },
      { kind: roomKind() as never },
      { kind: playerKind() as never, createOnDemand: true },
    ],
  });
  await h.system.spawn("lobby/ABC123", { code: "ABC123", host: { id: "alice", name: "Alice" } });
  await h.system.ask("lobby/ABC123", { type: "join", player: { id: "bob", name: "Bob" } });
  await h.system.ask("lobby/ABC123", { type: "join", player: { id: "carol", name: "Carol" } });
  const started = await h.system.ask("lobby/ABC123", { type: "start", player: "alice", mode: "duo" });
  const key = `room/${(started as { value: { room: string } }).value.room}`;
  await h.settle();
  return { h, key };
}

describe("a lobby's room on the runtime", () => {
  it("starts at once with the lobby's seats and host, and relays turns to the members", async () => {
    const { h, key } = await playing();
    expect(h.lastOf("bob", "room")).toMatchObject({
      host: "alice",
      phase: "playing",
      seats: [
        { seat: 1, team: 0, player: "alice", ai: false },
        { seat: 2, team: 1, player: "bob", ai: false },
        { seat: 3, team: 0, player: "carol", ai: false },
        { seat: 50, team: 1, player: null, ai: true },
      ],
    });
    await h.system.ask(key, { type: "command", player: "carol", data: "go" });
    await h.clock.advance(200);
    expect(h.framesOf("bob").filter((f) => f.type === "turn")).toMatchObject([
      { turn: 1, commands: [{ side: 3, data: "go" }] },
      { turn: 2, commands: [] },
    ]);
  });

  it("a guest's return turns its seat into AI and the room plays on; the host's return ends it", async () => {
    const { h, key } = await playing();
    await h.system.ask("lobby/ABC123", { type: "return", player: "bob" });
    await h.settle();
    expect(h.lastOf("alice", "room")).toMatchObject({
      seats: [{}, { seat: 2, player: null, ai: true }, {}, {}],
    });
    await h.clock.advance(100);
    expect(h.lastOf("carol", "turn")).toMatchObject({ turn: 1, ai: [2] });
    const bobTurns = h.framesOf("bob").filter((f) => f.type === "turn").length;
    await h.clock.advance(500);
    expect(h.framesOf("bob").filter((f) => f.type === "turn")).toHaveLength(bobTurns);
    await h.system.ask("lobby/ABC123", { type: "return", player: "alice" });
    await h.settle();
    expect(h.system.isLive(key)).toBe(false);
    expect(h.store.keys().filter((k) => k.startsWith("room/"))).toEqual([]);
    expect(h.lastOf("carol", "lobby")).toMatchObject({ playing: false });
    expect(h.reported).toEqual([]);
  });

  it("finish and abort tell the lobby, which brings everyone back after returnAfterEndSeconds", async () => {
    const { h, key } = await playing();
    expect(await h.system.ask(key, { type: "abort", player: "bob" })).toMatchObject({ code: "NOT_HOST" });
    expect(await h.system.ask(key, { type: "abort", player: "alice" })).toEqual({ ok: true });
    await h.settle();
    expect(h.system.isLive(key)).toBe(false);
    expect(h.lastOf("bob", "room")).toMatchObject({ ended: true });
    await h.clock.advance(defaultLobbyOptions.returnAfterEndSeconds * 1000);
    expect(h.lastOf("bob", "lobby")).toMatchObject({ playing: false, room: null });
    expect(h.reported).toEqual([]);
  });
});
