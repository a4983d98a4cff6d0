import { describe, expect, it } from "vitest";
import { playerRegistry as registry } from "./support/player-driver.ts";
import type { Effect } from "../../actors/runtime/types.ts";
import { cursorParty, find, queue as queueOf } from "./support/matchmaking-driver.ts";

/** A queue's placement in a matched lobby, as the player's registry records it (or undoes it). */

const queue = "queue/chess";
const search = { kind: "search", queue } as const;
const mm = "mmlobby/chess/1";

const tells = (effects: readonly Effect[]) => effects.filter((e) => e.type === "tell");
const placed = (entry: string, party = false) => ({ type: "placed", queue, entry, lobby: mm, party });
const leaveOf = (lobby: string, player = "alice") => ({
  type: "tell",
  to: lobby,
  message: { type: "leave", player },
});

describe("player registry: a queue's placement", () => {
  it("a search placed in a matched lobby is recorded: the next lobby leaves it", () => {
    const p = registry();
    p.send({ type: "enter", entry: search, seated: null });
    p.send({ type: "entered", entry: search, queueEntry: "e1" });
    expect(tells(p.send(placed("e1")))).toEqual([]);
    expect(p.state).toMatchObject({ lobby: mm, search: null });
    const asked = p.send({ type: "enter", entry: { kind: "lobby", key: "lobby/BBBB" }, seated: null });
    expect(asked.at(-1)).toEqual({ type: "reply", value: { leave: [{ lobby: mm }] } });
  });

  it("a cancel the queue could not honour (the group was already sent): the player is taken out again", () => {
    const p = registry();
    p.send({ type: "enter", entry: search, seated: null });
    p.send({ type: "entered", entry: search, queueEntry: "e1" });
    // The player joins a private lobby while the queue is placing it: the cancel comes too late.
    p.send({ type: "enter", entry: { kind: "lobby", key: "lobby/BBBB" }, seated: null });
    p.send({ type: "joined", lobby: "lobby/BBBB" });
    expect(tells(p.send(placed("e1")))).toEqual([leaveOf(mm)]);
    expect(p.state).toMatchObject({ lobby: "lobby/BBBB", search: null, matched: null });
    expect(p.state.leaving).toContainEqual({ lobby: mm, tries: 1 });
  });

  it("placed while the entry that gives the search up is still under way: left as well", () => {
    const p = registry();
    p.send({ type: "enter", entry: search, seated: null });
    p.send({ type: "entered", entry: search, queueEntry: "e1" });
    p.send({ type: "enter", entry: { kind: "lobby", key: "lobby/BBBB" }, seated: null });
    expect(tells(p.send(placed("e1")))).toEqual([leaveOf(mm)]);
    expect(p.state.lobby).not.toBe(mm);
  });

  it("a party keeps its private lobby beside the matched one; a member's next lobby leaves both", () => {
    const party = { kind: "partySearch", queue, lobby: "lobby/AAAA", host: "ann" } as const;
    const member = registry("bob");
    member.send({ type: "joined", lobby: "lobby/AAAA" });
    member.send({ type: "enter", entry: party, seated: null });
    member.send({ type: "entered", entry: party, queueEntry: "e3" });
    member.send(placed("e3", true));
    member.send({ type: "searchEnded", queue, entry: "e3" });
    expect(member.state).toMatchObject({ lobby: "lobby/AAAA", matched: mm, search: null });
    const asked = member.send({ type: "enter", entry: { kind: "lobby", key: "lobby/BBBB" }, seated: null });
    expect(asked.at(-1)).toEqual({
      type: "reply",
      value: { leave: [{ lobby: "lobby/AAAA" }, { lobby: mm }] },
    });
    expect(tells(member.send({ type: "joined", lobby: "lobby/BBBB" }))).toEqual([
      leaveOf("lobby/AAAA", "bob"),
      leaveOf(mm, "bob"),
    ]);
    expect(member.state).toMatchObject({ lobby: "lobby/BBBB", matched: null });
  });
});

describe("the queue tells each placed player's registry", () => {
  it("a lobby's join answer names the lobby to the requester and its party", () => {
    const q = queueOf(cursorParty);
    q.send(find("alice", 100));
    q.report("mmlobby/CursorPartyV2/9", 1, 100);
    q.step();
    const effects = q.send({ type: "joinResult", entry: "e1", lobby: "mmlobby/CursorPartyV2/9", ok: true });
    expect(tells(effects)).toContainEqual({
      type: "tell",
      to: "player/alice",
      message: {
        type: "placed",
        queue: "queue/CursorPartyV2",
        entry: "e1",
        lobby: "mmlobby/CursorPartyV2/9",
        party: false,
      },
    });
  });
});

describe("the queue tells the registry of a lobby it opened for a search", () => {
  it("find-or-create: the requester's registry hears the new lobby", () => {
    const q = queueOf(cursorParty);
    q.send(find("alice", 100, { maxSteps: 1 }, "findOrCreateLobby"));
    const effects = q.step();
    const spawned = effects.find((e) => e.type === "spawn");
    expect(spawned).toBeDefined();
    expect(tells(effects)).toContainEqual({
      type: "tell",
      to: "player/alice",
      message: {
        type: "placed",
        queue: "queue/CursorPartyV2",
        entry: "e1",
        lobby: (spawned as { key: string }).key,
        party: false,
      },
    });
  });
});

describe("the host's registry tells its lobby of the party's search", () => {
  it("starts with the queue's entry, and ends however the search ends", () => {
    const party = { kind: "partySearch", queue, lobby: "lobby/AAAA", host: "ann" } as const;
    const host = registry("ann");
    host.send({ type: "joined", lobby: "lobby/AAAA" });
    host.send({ type: "enter", entry: party, seated: null });
    expect(tells(host.send({ type: "entered", entry: party, queueEntry: "e3" }))).toEqual([
      {
        type: "tell",
        to: "lobby/AAAA",
        message: { type: "partySearch", host: "ann", lobbyType: "chess", entry: "e3" },
      },
    ]);
    expect(tells(host.send({ type: "searchEnded", queue, entry: "e3" }))).toEqual([
      {
        type: "tell",
        to: "lobby/AAAA",
        message: { type: "partySearchEnded", lobbyType: "chess", entry: "e3" },
      },
    ]);
    // A member's registry tells nothing: the host's speaks for the lobby.
    const member = registry("bob");
    member.send({ type: "joined", lobby: "lobby/AAAA" });
    member.send({ type: "enter", entry: party, seated: null });
    expect(tells(member.send({ type: "entered", entry: party, queueEntry: "e3" }))).toEqual([]);
  });
});

describe("a kicked party member", () => {
  it("is taken out of the matched lobby its party was placed in, as well as the private lobby", () => {
    const party = { kind: "partySearch", queue, lobby: "lobby/AAAA", host: "ann" } as const;
    const member = registry("bob");
    member.send({ type: "joined", lobby: "lobby/AAAA" });
    member.send({ type: "enter", entry: party, seated: null });
    member.send({ type: "entered", entry: party, queueEntry: "e3" });
    member.send(placed("e3", true));
    expect(tells(member.send({ type: "left", lobby: "lobby/AAAA", kicked: true }))).toEqual([
      leaveOf(mm, "bob"),
    ]);
    expect(member.state).toMatchObject({ lobby: null, matched: null, search: null });
  });

  it("a member who leaves of its own accord keeps its seat in the matched lobby", () => {
    const party = { kind: "partySearch", queue, lobby: "lobby/AAAA", host: "ann" } as const;
    const member = registry("bob");
    member.send({ type: "joined", lobby: "lobby/AAAA" });
    member.send({ type: "enter", entry: party, seated: null });
    member.send({ type: "entered", entry: party, queueEntry: "e3" });
    member.send(placed("e3", true));
    expect(tells(member.send({ type: "left", lobby: "lobby/AAAA" }))).toEqual([]);
    expect(member.state).toMatchObject({ lobby: null, matched: mm });
  });
});
