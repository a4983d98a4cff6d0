import { describe, expect, it } from "vitest";
import {
  browseLimit,
  directoryKind,
  directorySchemaVersion,
  type DirectoryState,
} from "../../actors/directory/index.ts";
import { testContext } from "../../actors/runtime/test-context.ts";
import type { Effect } from "../../actors/runtime/types.ts";

const kind = directoryKind();

function directory() {
  const ctx = testContext({ key: "directory/lobbies", now: 100 });
  let state: DirectoryState = kind.create(undefined, ctx).state;
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

function listing(code: string, mode: string | null, freeSeats: number, playing = false) {
  return { type: "listing", code, mode, map: "dunes", freeSeats, members: 8 - freeSeats, playing } as const;
}

function line(code: string, mode: string | null, freeSeats: number, playing = false) {
  const { type: _type, ...rest } = listing(code, mode, freeSeats, playing);
  return rest;
}

function browse(d: ReturnType<typeof directory>, query: object = {}): unknown {
  const [answer] = d.send({ type: "browse", ...query });
  return (answer as { value: { lobbies: unknown } }).value.lobbies;
}

describe("directory of public lobbies", () => {
  it("lists, updates and unlists; an equal listing or unknown unlist changes nothing", () => {
    const d = directory();
    d.send(listing("BBBBBB", "duo", 6));
    expect(d.state.listings.BBBBBB).toEqual({
      code: "BBBBBB",
      mode: "duo",
      map: "dunes",
      freeSeats: 6,
      members: 2,
      playing: false,
      at: 100,
    });
    const before = d.state;
    d.ctx.advance(50);
    expect(d.send(listing("BBBBBB", "duo", 6))).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(before);
    d.send(listing("BBBBBB", "duo", 5));
    expect(d.state.listings.BBBBBB?.freeSeats).toBe(5);
    expect(d.state.listings.BBBBBB?.at).toBe(150);
    const listed = d.state;
    d.send({ type: "unlist", code: "ZZZZZZ" });
    expect(d.state).toBe(listed);
    d.send({ type: "unlist", code: "BBBBBB" });
    expect(d.state.listings).toEqual({});
  });

  it("browse answers lobbies sorted by code, filtered by mode and free seats", () => {
    const d = directory();
    d.send(listing("CCCCCC", "duo", 0, true));
    d.send(listing("AAAAAA", "duo", 3));
    d.send(listing("BBBBBB", "ffa", 2));
    d.send(listing("DDDDDD", null, 1));
    expect(browse(d)).toEqual([
      line("AAAAAA", "duo", 3),
      line("BBBBBB", "ffa", 2),
      line("CCCCCC", "duo", 0, true),
      line("DDDDDD", null, 1),
    ]);
    expect(browse(d, { mode: "duo" })).toEqual([line("AAAAAA", "duo", 3), line("CCCCCC", "duo", 0, true)]);
    expect(browse(d, { freeOnly: true })).toEqual([
      line("AAAAAA", "duo", 3),
      line("BBBBBB", "ffa", 2),
      line("DDDDDD", null, 1),
    ]);
    expect(browse(d, { mode: "duo", freeOnly: true })).toEqual([line("AAAAAA", "duo", 3)]);
  });

  it("browse answers at most 100 lobbies", () => {
    const d = directory();
    for (let i = 0; i < 120; i++) d.send(listing(`L${String(i).padStart(3, "0")}`, "duo", 1));
    const lobbies = browse(d) as { code: string }[];
    expect(lobbies).toHaveLength(browseLimit);
    expect(lobbies[0]?.code).toBe("L000");
    expect(lobbies.at(-1)?.code).toBe("L099");
  });

  it("parse, upgrade and idle", () => {
    expect(kind.parse({ type: "browse", mode: 3 })).toBeUndefined();
    expect(kind.parse({ type: "listing", code: "AAAAAA" })).toBeUndefined();
    expect(kind.parse({ type: "unlist", code: "__proto__" })).toBeUndefined();
    const d = directory();
    d.send(listing("AAAAAA", "duo", 3));
    expect(kind.upgrade(JSON.parse(JSON.stringify(d.state)), directorySchemaVersion)).toEqual(d.state);
    expect(kind.idle(d.state)).toBe(true);
  });
});
