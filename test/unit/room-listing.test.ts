import { describe, expect, it } from "vitest";
import type { Effect } from "../../actors/runtime/types.ts";
import { directRoom, lobbyInit, ofType, roomDriver, startedDirectRoom } from "./support/room-driver.ts";

/** A public room's line in the browse list (actors/room/room-listing.ts, docs/rooms.md "The browse list"). */

function directoryTells(effects: readonly Effect[]): unknown[] {
  return ofType(effects, "tell")
    .filter((t) => t.to === "directory/lobbies")
    .map((t) => t.message);
}

const line = { type: "roomListing", code: "QWERTY", mode: "versus", map: "caves", seats: 4 } as const;

describe("a public room in the browse list", () => {
  it("is listed at its create and follows joins, AI seats, setup and leaves; other changes send nothing", () => {
    const d = directRoom(4, { public: true });
    expect(directoryTells(d.created)).toEqual([{ ...line, freeSeats: 3, players: 1 }]);
    expect(d.state.public).toBe(true);
    expect(directoryTells(d.send({ type: "join", player: { id: "bob", name: "Bob" } }))).toEqual([
      { ...line, freeSeats: 2, players: 2 },
    ]);
    expect(directoryTells(d.send({ type: "setAi", player: "alice", side: 3, ai: true }))).toEqual([
      { ...line, freeSeats: 1, players: 2 },
    ]);
    expect(directoryTells(d.send({ type: "ready", player: "bob", ready: true }))).toEqual([]);
    expect(directoryTells(d.send({ type: "chat", player: "bob", channel: "all", text: "hi" }))).toEqual([]);
    expect(directoryTells(d.send({ type: "setup", player: "alice", mode: "ffa", map: null }))).toEqual([
      { ...line, mode: "ffa", map: null, freeSeats: 1, players: 2 },
    ]);
    expect(directoryTells(d.send({ type: "leaveSeat", player: "bob" }))).toEqual([
      { ...line, mode: "ffa", map: null, freeSeats: 2, players: 1 },
    ]);
    // A refusal changes nothing and tells nobody.
    expect(directoryTells(d.send({ type: "setAi", player: "bob", side: 2, ai: true }))).toEqual([]);
  });

  it("is unlisted when its match starts, and says nothing more while it plays or when it ends", () => {
    const d = directRoom(2, { public: true });
    d.send({ type: "join", player: { id: "bob", name: "Bob" } });
    d.send({ type: "ready", player: "alice", ready: true });
    expect(directoryTells(d.send({ type: "ready", player: "bob", ready: true }))).toEqual([
      { type: "roomUnlist", code: "QWERTY" },
    ]);
    expect(d.state.phase).toBe("playing");
    expect(directoryTells(d.advance(500))).toEqual([]);
    expect(directoryTells(d.send({ type: "abort", player: "alice" }))).toEqual([]);
  });

  it("is unlisted when it closes before its start (the host leaves, abort, abandoned)", () => {
    for (const closing of [
      { type: "leaveSeat", player: "alice" },
      { type: "abort", player: "alice" },
    ]) {
      const d = directRoom(2, { public: true });
      const effects = d.send(closing);
      expect(ofType(effects, "stop")).toHaveLength(1);
      expect(directoryTells(effects)).toEqual([{ type: "roomUnlist", code: "QWERTY" }]);
    }
    const d = directRoom(2, { public: true });
    d.send({ type: "connection", player: "alice", connected: false });
    d.ctx.advance(10 * 60_000);
    const abandoned = d.send({ type: "timer", name: "abandon" });
    expect(ofType(abandoned, "stop")).toHaveLength(1);
    expect(directoryTells(abandoned)).toEqual([{ type: "roomUnlist", code: "QWERTY" }]);
  });

  it("says its line again when the directory asks or after a restore; unlisted once it plays", () => {
    const d = directRoom(4, { public: true });
    const before = d.state;
    expect(directoryTells(d.send({ type: "listingCheck" }))).toEqual([{ ...line, freeSeats: 3, players: 1 }]);
    expect(d.state).toBe(before);
    expect(directoryTells(d.send({ type: "restored", reason: "failover", connected: ["alice"] }))).toEqual([
      { ...line, freeSeats: 3, players: 1 },
    ]);
    const started = startedDirectRoom(["bob"], 2, { public: true });
    expect(directoryTells(started.send({ type: "listingCheck" }))).toEqual([
      { type: "roomUnlist", code: "QWERTY" },
    ]);
  });

  it("a private room and a lobby's room never tell the directory anything", () => {
    const d = directRoom(2);
    expect(d.state.public).toBe(false);
    expect(directoryTells(d.created)).toEqual([]);
    expect(directoryTells(d.send({ type: "join", player: { id: "bob", name: "Bob" } }))).toEqual([]);
    expect(directoryTells(d.send({ type: "listingCheck" }))).toEqual([]);
    expect(directoryTells(d.send({ type: "restored", reason: "failover", connected: [] }))).toEqual([]);
    const lobbyRoom = roomDriver(lobbyInit);
    expect(directoryTells(lobbyRoom.created)).toEqual([]);
    expect(directoryTells(lobbyRoom.send({ type: "listingCheck" }))).toEqual([]);
  });

  it("the room frame says whether the room is direct and public", () => {
    const d = directRoom(2, { public: true });
    const frame = ofType(d.created, "push")[0]?.frame;
    expect(frame).toMatchObject({ direct: true, public: true });
    const lobbyRoom = roomDriver(lobbyInit);
    expect(ofType(lobbyRoom.created, "push")[0]?.frame).toMatchObject({ direct: false, public: false });
  });

  it("a create with a malformed public flag is refused by the schema", () => {
    expect(() => directRoom(2, { public: "yes" })).toThrow();
  });
});
