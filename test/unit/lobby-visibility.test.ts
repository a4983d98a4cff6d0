import { describe, expect, it } from "vitest";
import type { Effect } from "../../actors/runtime/types.ts";
import { lobby, lobbyOf, ofType } from "./support/lobby-driver.ts";

/** The listing's fields a lobby without a lock, a password or a create time says. */
const door = { locked: false, hasPassword: false, maxMembers: 8, createdAt: 0 } as const;
const listing = {
  type: "listing",
  code: "ABC123",
  mode: "duo",
  map: "dunes",
  data: { mode: "duo", map: "dunes" },
  ...door,
} as const;

function directoryTells(effects: readonly Effect[]) {
  return ofType(effects, "tell").filter((t) => t.to === "directory/lobbies");
}

describe("visibility (SPEC §1)", () => {
  it("a public lobby is listed on create with its mode, map and free seats", () => {
    const d = lobby({}, { public: true, metadata: { mode: "duo", map: "dunes", ranked: false } });
    expect(d.created.at(-1)).toEqual({
      type: "tell",
      to: "directory/lobbies",
      message: {
        ...listing,
        data: { mode: "duo", map: "dunes", ranked: false },
        freeSeats: 7,
        members: 1,
        playing: false,
      },
    });
    expect(d.state.metadata).toEqual({ mode: "duo", map: "dunes", ranked: false });
  });

  it("the listing follows joins, leaves and the room; other changes send nothing", () => {
    const d = lobbyOf(["alice"], {}, true);
    expect(directoryTells(d.send({ type: "join", player: { id: "bob", name: "Bob" } }))).toEqual([
      {
        type: "tell",
        to: "directory/lobbies",
        message: { ...listing, freeSeats: 6, members: 2, playing: false },
      },
    ]);
    expect(directoryTells(d.send({ type: "ready", player: "bob", ready: true }))).toEqual([]);
    expect(directoryTells(d.send({ type: "makeHost", player: "alice", target: "bob" }))).toEqual([]);
    expect(directoryTells(d.send({ type: "start", player: "bob", mode: "duo" }))).toEqual([
      {
        type: "tell",
        to: "directory/lobbies",
        message: { ...listing, freeSeats: 6, members: 2, playing: true },
      },
    ]);
    expect(directoryTells(d.send({ type: "return", player: "bob" }))).toEqual([
      {
        type: "tell",
        to: "directory/lobbies",
        message: { ...listing, freeSeats: 6, members: 2, playing: false },
      },
    ]);
    expect(directoryTells(d.send({ type: "leave", player: "alice" }))).toEqual([
      {
        type: "tell",
        to: "directory/lobbies",
        message: { ...listing, freeSeats: 7, members: 1, playing: false },
      },
    ]);
  });

  it("a public lobby is unlisted when it closes, before it stops", () => {
    const d = lobbyOf(["alice"], {}, true);
    expect(d.send({ type: "leave", player: "alice" }).slice(-3)).toEqual([
      { type: "reply" },
      { type: "tell", to: "directory/lobbies", message: { type: "unlist", code: "ABC123" } },
      { type: "stop" },
    ]);
  });

  it("a public lobby without metadata lists null mode and map", () => {
    const d = lobby({ maxMembers: 4 }, { public: true });
    expect(directoryTells(d.created)[0]?.message).toEqual({
      type: "listing",
      code: "ABC123",
      mode: null,
      map: null,
      freeSeats: 3,
      members: 1,
      playing: false,
      data: {},
      ...door,
      maxMembers: 4,
    });
  });

  it("says its line again, unchanged, when the directory asks or after a restore on a new node", () => {
    const d = lobbyOf(["alice", "bob"], {}, true);
    const before = d.state;
    const current = { ...listing, freeSeats: 6, members: 2, playing: false };
    expect(directoryTells(d.send({ type: "listingCheck" }))).toEqual([
      { type: "tell", to: "directory/lobbies", message: current },
    ]);
    expect(d.state).toBe(before);
    expect(
      directoryTells(d.send({ type: "restored", reason: "failover", connected: ["alice", "bob"] })),
    ).toEqual([{ type: "tell", to: "directory/lobbies", message: current }]);
  });

  it("a private lobby asked by the directory (a stale line) answers its unlist", () => {
    const d = lobby();
    expect(directoryTells(d.send({ type: "listingCheck" }))).toEqual([
      { type: "tell", to: "directory/lobbies", message: { type: "unlist", code: "ABC123" } },
    ]);
  });

  it("a private lobby never tells the directory, through its whole life", () => {
    const d = lobby();
    const all: Effect[] = [...d.created];
    all.push(...d.send({ type: "join", player: { id: "bob", name: "Bob" } }));
    all.push(...d.send({ type: "restored", reason: "failover", connected: ["alice", "bob"] }));
    all.push(...d.send({ type: "start", player: "alice", mode: "duel" }));
    all.push(...d.send({ type: "roomEnded", room: d.state.room!.code }));
    all.push(...d.fire("return"));
    all.push(...d.send({ type: "leave", player: "bob" }));
    all.push(...d.send({ type: "leave", player: "alice" }));
    expect(all.some((e) => e.type === "stop")).toBe(true);
    expect(directoryTells(all)).toEqual([]);
  });
});
