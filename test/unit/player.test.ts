import { describe, expect, it } from "vitest";
import {
  createMemoryMs,
  leaveRetryMs,
  maxLeaveTries,
  maxRememberedCreates,
  playerKind,
  playerSchemaVersion,
  type PlayerState,
} from "../../actors/player/index.ts";
import { testContext } from "../../actors/runtime/test-context.ts";
import type { Effect } from "../../actors/runtime/types.ts";

const kind = playerKind();

function player(id = "alice") {
  const ctx = testContext({ key: `player/${id}`, now: 5_000_000 });
  let state: PlayerState = kind.create(undefined, ctx).state;
  return {
    ctx,
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

describe("player registry", () => {
  it("starts in no lobby with no creates and no effects", () => {
    expect(kind.create(undefined, testContext())).toEqual({
      state: {
        lobby: null,
        creates: [],
        leaving: [],
        search: null,
        entering: null,
        room: null,
        matched: null,
        match: null,
      },
      effects: [],
    });
  });

  it("records the lobby joined and answers get", () => {
    const p = player();
    expect(p.send({ type: "joined", lobby: "lobby/AAAAAA" })).toEqual([{ type: "reply" }]);
    expect(p.send({ type: "get" })).toEqual([
      { type: "reply", value: { lobby: "lobby/AAAAAA", match: null, search: null, room: null } },
    ]);
  });

  it("joining another lobby leaves the first", () => {
    const p = player();
    p.send({ type: "joined", lobby: "lobby/AAAAAA" });
    expect(p.send({ type: "joined", lobby: "lobby/BBBBBB" })).toEqual([
      { type: "tell", to: "lobby/AAAAAA", message: { type: "leave", player: "alice" } },
      { type: "timer", name: "driveLeaves", at: p.ctx.now + leaveRetryMs, kind: "game" },
      { type: "reply" },
    ]);
    expect(p.state.lobby).toBe("lobby/BBBBBB");
    expect(p.state.leaving).toEqual([{ lobby: "lobby/AAAAAA", tries: 1 }]);
  });

  it("keeps telling the old lobby leave until it confirms, and gives up after maxLeaveTries", () => {
    const p = player();
    p.send({ type: "joined", lobby: "lobby/AAAAAA" });
    p.send({ type: "joined", lobby: "lobby/BBBBBB" });
    // The old lobby's node died before the tell arrived: the timer tells it again.
    const again = p.send({ type: "timer", name: "driveLeaves" });
    expect(again).toContainEqual({
      type: "tell",
      to: "lobby/AAAAAA",
      message: { type: "leave", player: "alice" },
    });
    expect(p.state.leaving).toEqual([{ lobby: "lobby/AAAAAA", tries: 2 }]);
    for (let i = 2; i < maxLeaveTries; i++) p.send({ type: "timer", name: "driveLeaves" });
    expect(p.send({ type: "timer", name: "driveLeaves" })).toEqual([]);
    expect(p.state.leaving).toEqual([]);
    expect(p.state.lobby).toBe("lobby/BBBBBB");
  });

  it("a confirmation (left) from the old lobby ends the move; rejoining it ends it too", () => {
    const p = player();
    p.send({ type: "joined", lobby: "lobby/AAAAAA" });
    p.send({ type: "joined", lobby: "lobby/BBBBBB" });
    p.send({ type: "left", lobby: "lobby/AAAAAA" });
    expect(p.state).toMatchObject({ lobby: "lobby/BBBBBB", leaving: [] });
    expect(p.send({ type: "timer", name: "driveLeaves" })).toEqual([]);
    p.send({ type: "joined", lobby: "lobby/CCCCCC" });
    p.send({ type: "joined", lobby: "lobby/BBBBBB" });
    // Back in B: B is no longer being left; C is.
    expect(p.state.leaving).toEqual([{ lobby: "lobby/CCCCCC", tries: 1 }]);
  });

  it("joined for the lobby it is already in changes nothing", () => {
    const p = player();
    p.send({ type: "joined", lobby: "lobby/AAAAAA" });
    const before = p.state;
    expect(p.send({ type: "joined", lobby: "lobby/AAAAAA" })).toEqual([{ type: "reply" }]);
    expect(p.state).toBe(before);
  });

  it("left clears only the current lobby; a late left from an old one is ignored", () => {
    const p = player();
    p.send({ type: "joined", lobby: "lobby/AAAAAA" });
    p.send({ type: "joined", lobby: "lobby/BBBBBB" });
    p.send({ type: "left", lobby: "lobby/AAAAAA" });
    expect(p.state.lobby).toBe("lobby/BBBBBB");
    p.send({ type: "left", lobby: "lobby/BBBBBB" });
    expect(p.state.lobby).toBeNull();
  });

  it("beginCreate is idempotent per session and request id", () => {
    const p = player();
    expect(p.send({ type: "beginCreate", session: "s1", id: 1, code: "AAAAAA" })).toEqual([
      { type: "reply", value: { code: "AAAAAA" } },
    ]);
    const before = p.state;
    expect(p.send({ type: "beginCreate", session: "s1", id: 1, code: "BBBBBB" })).toEqual([
      { type: "reply", value: { code: "AAAAAA" } },
    ]);
    expect(p.state).toBe(before);
    expect(p.send({ type: "beginCreate", session: "s1", id: 2, code: "CCCCCC" })).toEqual([
      { type: "reply", value: { code: "CCCCCC" } },
    ]);
    expect(p.send({ type: "beginCreate", session: "s2", id: 1, code: "DDDDDD" })).toEqual([
      { type: "reply", value: { code: "DDDDDD" } },
    ]);
    expect(p.state.creates.map((c) => c.code)).toEqual(["AAAAAA", "CCCCCC", "DDDDDD"]);
  });

  it("replaceCreate overwrites the record after a collision", () => {
    const p = player();
    p.send({ type: "beginCreate", session: "s1", id: 1, code: "AAAAAA" });
    expect(p.send({ type: "replaceCreate", session: "s1", id: 1, code: "EEEEEE" })).toEqual([
      { type: "reply", value: { code: "EEEEEE" } },
    ]);
    expect(p.send({ type: "beginCreate", session: "s1", id: 1, code: "FFFFFF" })).toEqual([
      { type: "reply", value: { code: "EEEEEE" } },
    ]);
    expect(p.state.creates).toEqual([{ session: "s1", id: 1, code: "EEEEEE", at: 5_000_000 }]);
  });

  it("creates older than 10 minutes are pruned", () => {
    const p = player();
    p.send({ type: "beginCreate", session: "s1", id: 1, code: "AAAAAA" });
    p.ctx.advance(createMemoryMs);
    p.send({ type: "beginCreate", session: "s1", id: 2, code: "BBBBBB" });
    expect(p.state.creates).toEqual([
      { session: "s1", id: 2, code: "BBBBBB", at: 5_000_000 + createMemoryMs },
    ]);
  });

  it("parse, upgrade and idle", () => {
    expect(kind.parse({ type: "get", extra: 1 })).toBeUndefined();
    expect(kind.parse({ type: "beginCreate", session: "s", id: "1", code: "AAAAAA" })).toBeUndefined();
    expect(kind.parse({ type: "joined" })).toBeUndefined();
    expect(kind.parse({ type: "timer", name: "x" })).toEqual({ type: "timer", name: "x" });
    const p = player();
    p.send({ type: "joined", lobby: "lobby/AAAAAA" });
    p.send({ type: "beginCreate", session: "s1", id: 1, code: "AAAAAA" });
    expect(kind.upgrade(JSON.parse(JSON.stringify(p.state)), playerSchemaVersion)).toEqual(p.state);
    expect(() => kind.upgrade(p.state, playerSchemaVersion + 1)).toThrow();
    // A version-1 snapshot (before pending leaves) reads as one with none.
    expect(kind.upgrade({ lobby: "lobby/AAAAAA", creates: [] }, 1)).toEqual({
      lobby: "lobby/AAAAAA",
      creates: [],
      leaving: [],
      search: null,
      entering: null,
      room: null,
      matched: null,
      match: null,
    });
    // A version-3 snapshot (before party placements) reads with none.
    const v3 = { ...p.state } as Partial<typeof p.state>;
    delete v3.matched;
    expect(kind.upgrade(JSON.parse(JSON.stringify(v3)), 3)).toEqual(p.state);
    expect(kind.idle(p.state)).toBe(true);
  });

  it("remembers at most maxRememberedCreates creates, the newest", () => {
    const p = player();
    for (let id = 1; id <= maxRememberedCreates + 5; id++) {
      p.send({ type: "beginCreate", session: "s1", id, code: `C${id}` });
    }
    expect(p.state.creates).toHaveLength(maxRememberedCreates);
    expect(p.state.creates[0]?.id).toBe(6);
    expect(p.send({ type: "beginCreate", session: "s1", id: 21, code: "OTHER" })).toEqual([
      { type: "reply", value: { code: "C21" } },
    ]);
  });
});
