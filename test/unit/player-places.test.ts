import { describe, expect, it } from "vitest";
import { playerRegistry as registry } from "./support/player-driver.ts";
import {
  entryIntentMs,
  leaveRetryMs,
  playerKind,
  playerSchemaVersion,
  type PlayerState,
} from "../../actors/player/index.ts";
import type { Effect } from "../../actors/runtime/types.ts";

/** The registry carrying out the rule: intents recorded first, departures driven, and a restore mid-way. */

const kind = playerKind();
const queue = "queue/chess";
const search = { kind: "search", queue } as const;

/** The snapshot as the store keeps it, read back by a node of this release (a crash, a failover). */
function restore(state: PlayerState, id = "alice") {
  const snapshot: unknown = JSON.parse(JSON.stringify(state));
  return registry(id, kind.upgrade(snapshot, playerSchemaVersion));
}

const tells = (effects: readonly Effect[]) => effects.filter((e) => e.type === "tell");
const leaveOf = (lobby: string) => ({ type: "tell", to: lobby, message: { type: "leave", player: "alice" } });
const cancelOf = (entry: string, player = "alice") => ({
  type: "tell",
  to: queue,
  message: { type: "cancel", player, entry },
});

describe("player registry: entries through the rule", () => {
  it("a search from a lobby leaves the lobby only once the queue took it", () => {
    const p = registry();
    p.send({ type: "joined", lobby: "lobby/AAAA" });
    const asked = p.send({ type: "enter", entry: search, seated: null });
    expect(asked.at(-1)).toEqual({ type: "reply", value: { leave: [{ lobby: "lobby/AAAA" }] } });
    // Recorded, not carried out yet: a refused search must not cost the lobby.
    expect(tells(asked)).toEqual([]);
    expect(p.state.entering).toMatchObject({ entry: search, leave: [{ lobby: "lobby/AAAA" }] });
    const made = p.send({ type: "entered", entry: search, queueEntry: "e4" });
    expect(tells(made)).toEqual([leaveOf("lobby/AAAA")]);
    expect(p.state).toMatchObject({
      lobby: null,
      search: { queue, entry: "e4", party: null },
      entering: null,
      leaving: [{ lobby: "lobby/AAAA", tries: 1 }],
    });
  });

  it("a failed entry changes nothing", () => {
    const p = registry();
    p.send({ type: "joined", lobby: "lobby/AAAA" });
    p.send({ type: "enter", entry: search, seated: null });
    expect(tells(p.send({ type: "enterFailed", entry: search }))).toEqual([]);
    expect(p.state).toMatchObject({ lobby: "lobby/AAAA", search: null, entering: null, leaving: [] });
  });

  it("a seated player is refused a search: ALREADY_PLAYING, and nothing is recorded", () => {
    const p = registry();
    p.send({ type: "joined", lobby: "lobby/AAAA" });
    const before = p.state;
    expect(p.send({ type: "enter", entry: search, seated: "room/QQQQQQ" })).toEqual([
      expect.objectContaining({ type: "reject", code: "ALREADY_PLAYING" }),
    ]);
    expect(p.state).toBe(before);
  });

  it("the match room a queue recorded counts as seated, whatever the gateway says", () => {
    const p = registry();
    p.send({ type: "matchStarted", queue, room: "QQQQQQ" });
    expect(p.send({ type: "enter", entry: { kind: "lobby", key: "lobby/BBBB" }, seated: null })).toEqual([
      expect.objectContaining({ type: "reject", code: "ALREADY_PLAYING" }),
    ]);
    p.send({ type: "matchEnded", room: "QQQQQQ" });
    expect(
      p.send({ type: "enter", entry: { kind: "lobby", key: "lobby/BBBB" }, seated: null }).at(-1),
    ).toEqual({
      type: "reply",
      value: { leave: [] },
    });
  });

  it("joining a lobby cancels the search, naming its entry", () => {
    const p = registry();
    p.send({ type: "enter", entry: search, seated: null });
    p.send({ type: "entered", entry: search, queueEntry: "e7" });
    p.send({ type: "enter", entry: { kind: "lobby", key: "lobby/BBBB" }, seated: null });
    expect(tells(p.send({ type: "joined", lobby: "lobby/BBBB" }))).toEqual([cancelOf("e7")]);
    expect(p.state).toMatchObject({ lobby: "lobby/BBBB", search: null, entering: null });
    // Driven a few times (the queue confirms nothing), then given up.
    expect(tells(p.send({ type: "timer", name: "driveLeaves" }))).toEqual([cancelOf("e7")]);
  });

  it("searching the same queue again stops a cancel still being driven", () => {
    const p = registry();
    p.send({ type: "enter", entry: search, seated: null });
    p.send({ type: "entered", entry: search, queueEntry: "e1" });
    p.send({ type: "joined", lobby: "lobby/BBBB" });
    p.send({ type: "enter", entry: search, seated: null });
    expect(p.state.leaving).toEqual([]);
  });

  it("a party: every member is held until the queue says the search ended", () => {
    const party = { kind: "partySearch", queue, lobby: "lobby/AAAA", host: "ann" } as const;
    const member = registry("bob");
    member.send({ type: "joined", lobby: "lobby/AAAA" });
    member.send({ type: "enter", entry: party, seated: null });
    member.send({ type: "entered", entry: party, queueEntry: "e3" });
    expect(member.send({ type: "enter", entry: { kind: "lobby", key: "lobby/BBBB" }, seated: null })).toEqual(
      [expect.objectContaining({ type: "reject", code: "SEARCHING" })],
    );
    member.send({ type: "searchEnded", queue, entry: "e3" });
    expect(member.state.search).toBeNull();
  });

  it("a member leaving the party's lobby cancels the party's search (the host's entry)", () => {
    const party = { kind: "partySearch", queue, lobby: "lobby/AAAA", host: "ann" } as const;
    const member = registry("bob");
    member.send({ type: "joined", lobby: "lobby/AAAA" });
    member.send({ type: "enter", entry: party, seated: null });
    member.send({ type: "entered", entry: party, queueEntry: "e3" });
    expect(tells(member.send({ type: "left", lobby: "lobby/AAAA" }))).toEqual([
      { type: "tell", to: queue, message: { type: "cancel", player: "ann", entry: "e3" } },
    ]);
    expect(member.state).toMatchObject({ lobby: null, search: null });
  });

  it("a room sat down in directly is recorded, refuses a search from any gateway, and is cleared by seatLeft", () => {
    const p = registry();
    const room = { kind: "room", key: null } as const;
    p.send({ type: "enter", entry: room, seated: null });
    p.send({ type: "entered", entry: room, room: "room/QQQQQQ" });
    expect(p.state.room).toBe("room/QQQQQQ");
    expect(p.send({ type: "enter", entry: search, seated: null })).toEqual([
      expect.objectContaining({ type: "reject", code: "ALREADY_PLAYING" }),
    ]);
    p.send({ type: "seatLeft", room: "room/QQQQQQ" });
    expect(p.send({ type: "enter", entry: search, seated: null }).at(-1)).toEqual({
      type: "reply",
      value: { leave: [] },
    });
  });

  it("matchStarted ends the match's search", () => {
    const p = registry();
    p.send({ type: "enter", entry: search, seated: null });
    p.send({ type: "entered", entry: search, queueEntry: "e1" });
    p.send({ type: "matchStarted", queue, room: "QQQQQQ" });
    expect(p.state).toMatchObject({ search: null, match: { queue, room: "QQQQQQ" } });
  });
});

describe("player registry: a crash between the steps resolves the same way", () => {
  it("restored after the intent was recorded: the gateway's report still completes it", () => {
    const before = registry();
    before.send({ type: "joined", lobby: "lobby/AAAA" });
    before.send({ type: "enter", entry: search, seated: null });
    const after = restore(before.state);
    expect(after.send({ type: "restored", reason: "failover", connected: [] })).toEqual([
      { type: "timer", name: "driveLeaves", at: after.ctx.now + leaveRetryMs, kind: "game" },
    ]);
    expect(tells(after.send({ type: "entered", entry: search, queueEntry: "e1" }))).toEqual([
      leaveOf("lobby/AAAA"),
    ]);
    expect(after.state).toMatchObject({ lobby: null, search: { queue, entry: "e1" } });
  });

  it("restored with the gateway gone: the intent expires as made, so the player is in one place", () => {
    const before = registry();
    before.send({ type: "joined", lobby: "lobby/AAAA" });
    before.send({ type: "enter", entry: search, seated: null });
    const after = restore(before.state);
    after.send({ type: "restored", reason: "failover", connected: [] });
    after.ctx.advance(leaveRetryMs);
    expect(tells(after.send({ type: "timer", name: "driveLeaves" }))).toEqual([]);
    after.ctx.advance(entryIntentMs);
    expect(tells(after.send({ type: "timer", name: "driveLeaves" }))).toEqual([leaveOf("lobby/AAAA")]);
    expect(after.state).toMatchObject({ lobby: null, search: { queue, entry: null }, entering: null });
  });

  it("a join whose lobby's joined and gateway's report were both lost: the next join takes the player out of it", () => {
    const p = registry();
    const first = { kind: "lobby", key: "lobby/AAAA" } as const;
    const next = { kind: "lobby", key: "lobby/BBBB" } as const;
    p.send({ type: "enter", entry: first, seated: null });
    // The join was made; both words of it were lost while the registry's node was being taken over.
    const asked = p.send({ type: "enter", entry: next, seated: null });
    expect(asked.at(-1)).toEqual({ type: "reply", value: { leave: [{ lobby: "lobby/AAAA" }] } });
    expect(tells(p.send({ type: "joined", lobby: "lobby/BBBB" }))).toEqual([leaveOf("lobby/AAAA")]);
    expect(p.state).toMatchObject({ lobby: "lobby/BBBB", entering: null });
  });

  it("a join whose words were lost and whose intent expired is recorded as where the player is", () => {
    const p = registry();
    p.send({ type: "enter", entry: { kind: "lobby", key: "lobby/AAAA" }, seated: null });
    p.ctx.advance(entryIntentMs + leaveRetryMs);
    p.send({ type: "timer", name: "driveLeaves" });
    expect(p.state).toMatchObject({ lobby: "lobby/AAAA", entering: null });
    // In it or in none: a later lobby tells it leave, which a lobby that never seated the player confirms.
    p.send({ type: "enter", entry: { kind: "lobby", key: "lobby/BBBB" }, seated: null });
    expect(tells(p.send({ type: "joined", lobby: "lobby/BBBB" }))).toEqual([leaveOf("lobby/AAAA")]);
  });

  it("restored mid-departure: the old lobby is told leave again until it confirms", () => {
    const before = registry();
    before.send({ type: "joined", lobby: "lobby/AAAA" });
    before.send({ type: "joined", lobby: "lobby/BBBB" });
    const after = restore(before.state);
    after.send({ type: "restored", reason: "failover", connected: [] });
    expect(tells(after.send({ type: "timer", name: "driveLeaves" }))).toEqual([leaveOf("lobby/AAAA")]);
    after.send({ type: "left", lobby: "lobby/AAAA" });
    expect(after.send({ type: "timer", name: "driveLeaves" })).toEqual([]);
    expect(after.state).toMatchObject({ lobby: "lobby/BBBB", leaving: [] });
  });

  it("a version-2 snapshot mid-move reads with its lobby leave kept", () => {
    const v2 = {
      lobby: "lobby/BBBB",
      creates: [],
      leaving: [{ lobby: "lobby/AAAA", tries: 2 }],
      match: null,
    };
    expect(kind.upgrade(v2, 2)).toEqual({ ...v2, search: null, entering: null, room: null, matched: null });
  });
});
