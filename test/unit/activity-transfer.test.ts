import { describe, expect, it } from "vitest";
import { playerKind, type PlayerState } from "../../actors/player/index.ts";
import { roomKind, roomSchemaVersion } from "../../actors/room/index.ts";
import { testContext } from "../../actors/runtime/test-context.ts";
import type { Effect } from "../../actors/runtime/types.ts";
import { activityLobbyOf, KEY } from "./support/activity-driver.ts";
import { expectRefused, roomDriver } from "./support/room-driver.ts";

/**
 * Activity lobbies' fleet rules (docs/activity.md): the player registry keeps one lobby per player, private or
 * activity; a room started by an activity lobby seats a player only with its transfer token, and the
 * player leaves the activity lobby once it loads into the room.
 */

const ALICE_TOKEN = "AAAAaaaa1111BBBBbbbb2222";
const BOB_TOKEN = "CCCCcccc3333DDDDdddd4444";

const activityRoomInit = {
  code: "QWERTY",
  lobby: KEY,
  mode: "race",
  host: "alice",
  seats: [
    { seat: 1, team: 0, player: "alice" },
    { seat: 2, team: 0, player: "bob" },
  ],
  tokens: { alice: ALICE_TOKEN, bob: BOB_TOKEN },
};

const join = (id: string, token?: string) => ({
  type: "join",
  player: { id, name: id.toUpperCase() },
  ...(token === undefined ? {} : { token }),
});

function registry(id = "alice") {
  const kind = playerKind();
  const ctx = testContext({ key: `player/${id}`, now: 5_000_000 });
  let state: PlayerState = kind.create(undefined, ctx).state;
  return {
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

describe("one lobby per player: the registry knows activity lobbies", () => {
  it("an activity lobby taking a player in tells its registry, which leaves the private lobby", () => {
    const lobby = activityLobbyOf(["bob"]);
    expect(lobby.join("alice")).toContainEqual({
      type: "tell",
      to: "player/alice",
      message: { type: "joined", lobby: KEY },
    });
    const p = registry();
    p.send({ type: "joined", lobby: "lobby/ABC123" });
    expect(p.send({ type: "joined", lobby: KEY })).toEqual([
      { type: "tell", to: "lobby/ABC123", message: { type: "leave", player: "alice" } },
      expect.objectContaining({ type: "timer", name: "driveLeaves" }),
      { type: "reply" },
    ]);
    expect(p.send({ type: "get" })).toEqual([
      { type: "reply", value: { lobby: KEY, match: null, search: null, room: null } },
    ]);
  });

  it("joining a private lobby tells the activity lobby leave, a message the activity lobby takes", () => {
    const p = registry();
    p.send({ type: "joined", lobby: KEY });
    const effects = p.send({ type: "joined", lobby: "lobby/ABC123" });
    expect(effects).toEqual([
      { type: "tell", to: KEY, message: { type: "leave", player: "alice" } },
      expect.objectContaining({ type: "timer", name: "driveLeaves" }),
      { type: "reply" },
    ]);
    // The registry's leave, delivered to the activity lobby: alice is out and everyone hears it.
    const lobby = activityLobbyOf(["alice", "bob"]);
    const tell = effects[0] as Extract<Effect, { type: "tell" }>;
    const out = lobby.send(tell.message);
    expect(lobby.state.players.map((x) => x.id)).toEqual(["bob"]);
    expect(out).toContainEqual({ type: "tell", to: "player/alice", message: { type: "left", lobby: KEY } });
  });

  it("a late `left` from the activity lobby does not clear the private lobby joined since", () => {
    const p = registry();
    p.send({ type: "joined", lobby: KEY });
    p.send({ type: "joined", lobby: "lobby/ABC123" });
    p.send({ type: "left", lobby: KEY });
    expect(p.state.lobby).toBe("lobby/ABC123");
  });

  it("a lobby's join that is refused tells the registry nothing", () => {
    const lobby = activityLobbyOf(["a", "b", "c", "d"]);
    const effects = lobby.join("e");
    expect(effects).toEqual([expect.objectContaining({ type: "reject", code: "FULL" })]);
  });
});

describe("an activity room checks transfer tokens", () => {
  it("a player with its token takes its seat and its activity lobby is told it left", () => {
    const d = roomDriver(activityRoomInit);
    const effects = d.send(join("alice", ALICE_TOKEN));
    expect(effects[0]).toEqual({ type: "tell", to: KEY, message: { type: "leave", player: "alice" } });
    expect(effects).toContainEqual({ type: "reply", value: { room: "QWERTY", side: 1 } });
    expect(d.state.tokens).toEqual({ bob: BOB_TOKEN });
    // Once arrived, a join (a reconnect) needs no token and tells the lobby nothing more.
    const again = d.send(join("alice"));
    expect(again.some((e) => e.type === "tell")).toBe(false);
    expect(again).toContainEqual({ type: "reply", value: { room: "QWERTY", side: 1 } });
  });

  it("no token, another player's token or a forged one: UNAUTHORIZED, and nothing changes", () => {
    const d = roomDriver(activityRoomInit);
    expectRefused(d, join("alice"), "UNAUTHORIZED");
    expectRefused(d, join("alice", BOB_TOKEN), "UNAUTHORIZED");
    expectRefused(d, join("alice", "ZZZZzzzz9999ZZZZzzzz9999"), "UNAUTHORIZED");
    expect(d.state.tokens).toEqual({ alice: ALICE_TOKEN, bob: BOB_TOKEN });
  });

  it("a malformed token is not a message the room takes", () => {
    const d = roomDriver(activityRoomInit);
    expect(d.kind.parse(join("alice", "short"))).toBeUndefined();
    expect(d.kind.parse(join("alice", "has spaces in it 1234567890"))).toBeUndefined();
  });

  it("a player who has not arrived is refused every other request of a seated player", () => {
    const d = roomDriver(activityRoomInit);
    expectRefused(d, { type: "chat", player: "bob", channel: "all", text: "hi" }, "UNAUTHORIZED");
    expectRefused(d, { type: "finish", player: "bob" }, "UNAUTHORIZED");
  });

  it("a player without a seat cannot take one with any token", () => {
    const d = roomDriver(activityRoomInit);
    const before = d.state;
    const effects = d.send(join("mallory", ALICE_TOKEN));
    expect(effects).toEqual([expect.objectContaining({ type: "reject" })]);
    expect(d.state).toBe(before);
  });

  it("a private lobby's room has no tokens: its members are seated as before", () => {
    const d = roomDriver({ ...activityRoomInit, tokens: undefined, lobby: "lobby/ABC123" });
    expect(d.state.tokens).toEqual({});
    const effects = d.send(join("alice"));
    expect(effects).toContainEqual({ type: "reply", value: { room: "QWERTY", side: 1 } });
  });

  it("the activity lobby sees a player loaded into the room off silently", () => {
    const lobby = activityLobbyOf(["alice", "bob"]);
    if (lobby.state.stage.phase !== "waiting" || !lobby.state.stage.countdown.running)
      throw new Error("idle");
    lobby.ctx.now = lobby.state.stage.countdown.deadline;
    lobby.fire("countdown");
    // What the room tells the lobby on alice's arrival.
    const effects = lobby.send({ type: "leave", player: "alice" });
    expect(effects.some((e) => e.type === "push")).toBe(false);
    expect(lobby.state.players.map((p) => p.id)).toEqual(["bob"]);
  });
});

describe("tokens in the room's snapshot", () => {
  it("survive a restore, and a snapshot written before tokens existed reads as none", () => {
    const d = roomDriver(activityRoomInit);
    const kind = roomKind();
    const restored = kind.upgrade(JSON.parse(JSON.stringify(d.state)), roomSchemaVersion);
    expect(restored.tokens).toEqual({ alice: ALICE_TOKEN, bob: BOB_TOKEN });
    const { tokens: _tokens, ...older } = d.state;
    expect(kind.upgrade(JSON.parse(JSON.stringify(older)), roomSchemaVersion).tokens).toEqual({});
  });
});
