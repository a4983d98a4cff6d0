import { describe, expect, it } from "vitest";
import {
  browseLimit,
  directoryKind,
  directorySchemaVersion,
  directoryTiming,
  sweepTimerName,
  type DirectoryState,
} from "../../actors/directory/index.ts";
import { testContext } from "../../actors/runtime/test-context.ts";
import type { Effect, Transition } from "../../actors/runtime/types.ts";

const kind = directoryKind();

function directory() {
  const ctx = testContext({ key: "directory/lobbies", now: 100 });
  let state: DirectoryState = kind.create(undefined, ctx).state;
  let last: Transition<DirectoryState> | undefined;
  return {
    ctx,
    get state() {
      return state;
    },
    get volatile() {
      return last?.volatile === true;
    },
    send(message: unknown): readonly Effect[] {
      const parsed = kind.parse(message);
      expect(parsed, JSON.stringify(message)).toBeDefined();
      last = kind.handle(state, parsed!, ctx);
      state = last.state;
      return last.effects;
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

function roomListing(code: string, mode: string, freeSeats: number, seats = 4) {
  return {
    type: "roomListing",
    code,
    mode,
    map: null,
    seats,
    freeSeats,
    players: seats - freeSeats,
  } as const;
}

function roomLine(code: string, mode: string, freeSeats: number, seats = 4) {
  const { type: _type, ...rest } = roomListing(code, mode, freeSeats, seats);
  return rest;
}

function browseAll(
  d: ReturnType<typeof directory>,
  query: object = {},
): { lobbies: unknown; rooms: unknown } {
  const [answer] = d.send({ type: "browse", ...query });
  return (answer as { value: { lobbies: unknown; rooms: unknown } }).value;
}

function browse(d: ReturnType<typeof directory>, query: object = {}): unknown {
  return browseAll(d, { kind: "lobbies", ...query }).lobbies;
}

function checks(effects: readonly Effect[]): string[] {
  return effects.flatMap((e) =>
    e.type === "tell" && (e.message as { type: string }).type === "listingCheck" ? [e.to] : [],
  );
}

describe("directory of public lobbies", () => {
  it("lists, updates and unlists; an equal listing only refreshes its time; an unknown unlist changes nothing", () => {
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
    expect(d.volatile).toBe(false);
    d.ctx.advance(50);
    expect(d.send(listing("BBBBBB", "duo", 6))).toEqual([{ type: "reply" }]);
    // A refresh: only its time moved, written with the next change (volatile).
    expect(d.state.listings.BBBBBB?.at).toBe(150);
    expect(d.volatile).toBe(true);
    d.send(listing("BBBBBB", "duo", 5));
    expect(d.volatile).toBe(false);
    expect(d.state.listings.BBBBBB?.freeSeats).toBe(5);
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
    expect(kind.parse({ type: "browse", kind: "players" })).toBeUndefined();
    expect(kind.parse({ type: "listing", code: "AAAAAA" })).toBeUndefined();
    expect(kind.parse({ type: "unlist", code: "__proto__" })).toBeUndefined();
    expect(kind.parse({ ...roomListing("AAAAAA", "duo", 1), seats: 5 })).toBeUndefined();
    expect(kind.parse({ ...roomListing("AAAAAA", "duo", 1), extra: true })).toBeUndefined();
    expect(kind.parse({ type: "roomUnlist", code: "a b" })).toBeUndefined();
    const d = directory();
    expect(kind.idle(d.state)).toBe(true);
    d.send(listing("AAAAAA", "duo", 3));
    d.send(roomListing("RRRRRR", "duo", 1));
    expect(kind.upgrade(JSON.parse(JSON.stringify(d.state)), directorySchemaVersion)).toEqual(d.state);
    // The sweep runs while anything is listed.
    expect(kind.idle(d.state)).toBe(false);
    // A snapshot from before rooms were listed reads as an empty room list with no sweep.
    const old = { listings: { AAAAAA: { ...line("AAAAAA", "duo", 3), at: 5 } } };
    expect(kind.upgrade(old, directorySchemaVersion)).toEqual({ ...old, rooms: {}, sweepAt: null });
  });
});

describe("directory of public rooms", () => {
  it("lists rooms apart from lobbies; browse by kind, mode and free seats", () => {
    const d = directory();
    d.send(listing("AAAAAA", "duo", 3));
    d.send(roomListing("AAAAAA", "duo", 2));
    d.send(roomListing("CCCCCC", "duo", 0));
    d.send(roomListing("BBBBBB", "ffa", 1, 2));
    expect(browseAll(d)).toEqual({
      lobbies: [line("AAAAAA", "duo", 3)],
      rooms: [roomLine("AAAAAA", "duo", 2), roomLine("BBBBBB", "ffa", 1, 2), roomLine("CCCCCC", "duo", 0)],
    });
    expect(browseAll(d, { kind: "rooms", mode: "duo", freeOnly: true })).toEqual({
      lobbies: [],
      rooms: [roomLine("AAAAAA", "duo", 2)],
    });
    expect(browseAll(d, { kind: "lobbies" })).toEqual({ lobbies: [line("AAAAAA", "duo", 3)], rooms: [] });
    // A room's unlist leaves the lobby of the same code alone.
    d.send({ type: "roomUnlist", code: "AAAAAA" });
    expect(browseAll(d, { freeOnly: true })).toEqual({
      lobbies: [line("AAAAAA", "duo", 3)],
      rooms: [roomLine("BBBBBB", "ffa", 1, 2)],
    });
    const before = d.state;
    d.send({ type: "roomUnlist", code: "ZZZZZZ" });
    expect(d.state).toBe(before);
  });

  it("asks quiet lines to say them again and drops lines nobody answers for", () => {
    const d = directory();
    const first = d.send(listing("AAAAAA", "duo", 3));
    expect(first).toContainEqual({
      type: "timer",
      name: sweepTimerName,
      at: 100 + directoryTiming.sweepEveryMs,
      kind: "game",
    });
    d.send(roomListing("RRRRRR", "duo", 1));
    const sweepAt = d.state.sweepAt!;
    // A sweep before anything is quiet asks nobody and arms the next one.
    d.ctx.now = sweepAt;
    const quiet = d.send({ type: "timer", name: sweepTimerName });
    expect(checks(quiet)).toEqual([]);
    expect(d.state.sweepAt).toBe(sweepAt + directoryTiming.sweepEveryMs);
    // Past checkAfterMs: both are asked.
    d.ctx.now = 100 + directoryTiming.checkAfterMs;
    expect(checks(d.send({ type: "timer", name: sweepTimerName }))).toEqual(["lobby/AAAAAA", "room/RRRRRR"]);
    // The lobby answers (its listing again); the room never does (it is gone).
    d.send(listing("AAAAAA", "duo", 3));
    d.ctx.now = 100 + directoryTiming.expireAfterMs;
    const last = d.send({ type: "timer", name: sweepTimerName });
    // The lobby is quiet again and asked again; the room is dropped without a word.
    expect(checks(last)).toEqual(["lobby/AAAAAA"]);
    expect(Object.keys(d.state.rooms)).toEqual([]);
    expect(Object.keys(d.state.listings)).toEqual(["AAAAAA"]);
    // Once the list is empty the sweep stops and the directory may rest.
    d.send({ type: "unlist", code: "AAAAAA" });
    expect(d.state.sweepAt).toBeNull();
    expect(kind.idle(d.state)).toBe(true);
  });

  it("restored on a new node, it asks every line to say itself again (tells meanwhile may be lost)", () => {
    const d = directory();
    d.send(listing("AAAAAA", "duo", 3));
    d.send(roomListing("RRRRRR", "duo", 1));
    const before = d.state;
    const effects = d.send({ type: "restored", reason: "failover", connected: [] });
    expect(checks(effects)).toEqual(["lobby/AAAAAA", "room/RRRRRR"]);
    expect(d.state).toBe(before);
  });
});
