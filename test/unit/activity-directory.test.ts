import { describe, expect, it } from "vitest";
import {
  activityDirectoryKind,
  activitySettingsSchema,
  type ActivityDirectoryState,
} from "../../actors/activity/index.ts";
import { testContext } from "../../actors/runtime/test-context.ts";
import type { Effect } from "../../actors/runtime/types.ts";
import { activityLobbyOf, expectRefused as expectLobbyRefused, race } from "./support/activity-driver.ts";

/** SPEC §2 joining: the oldest lobby of the activity with room, else a new one. */

const survival = {
  ...race,
  id: "survival",
  map: "1101",
  minTeams: 1,
  maxTeams: 1,
  minTeamSize: 1,
  maxTeamSize: 4,
};
const L = (n: number) => `activityLobby/race/${n}`;
const player = (id: string) => ({ id, name: id.toUpperCase() });

function directory(activity = "race") {
  const kind = activityDirectoryKind({ activities: [race, survival] });
  const ctx = testContext({ key: `activity/${activity}` });
  let state: ActivityDirectoryState = kind.create(undefined, ctx).state;
  const d = {
    kind,
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
    join: (id: string, extra: object = {}) => d.send({ type: "join", player: player(id), ...extra }),
    status: (n: number, players: number, version: number, open = players < 4) =>
      d.send({ type: "lobbyStatus", lobby: L(n), players, open, version }),
    /** [lobby, players, open] rows. */
    rows: () => state.lobbies.map((l) => [l.lobby, l.players, l.open]),
  };
  return d;
}

const spawn = (n: number): Effect => ({
  type: "spawn",
  key: L(n),
  init: { settings: activitySettingsSchema.parse(race) },
});

describe("activity directory", () => {
  it("the first join opens lobby 1 with the activity's settings and answers its key", () => {
    const d = directory();
    expect(d.join("alice")).toEqual([spawn(1), { type: "reply", value: { lobby: L(1) } }]);
    expect(d.state).toEqual({
      activity: "race",
      next: 2,
      lobbies: [{ lobby: L(1), players: 1, capacity: 4, open: true, version: 0 }],
    });
  });

  it("sends joiners to the same lobby until it is full (seats reserved until the lobby reports), then opens a new one", () => {
    const d = directory();
    for (const p of ["a", "b", "c", "d"])
      expect(d.join(p).at(-1)).toEqual({ type: "reply", value: { lobby: L(1) } });
    expect(d.join("e")).toEqual([spawn(2), { type: "reply", value: { lobby: L(2) } }]);
    expect(d.rows()).toEqual([
      [L(1), 4, true],
      [L(2), 1, true],
    ]);
  });

  it("chooses the OLDEST lobby with room, not the newest or the emptiest", () => {
    const d = directory();
    for (const p of ["a", "b", "c", "d", "e", "f", "g", "h", "i"]) d.join(p); // lobbies 1, 2 full, 3 has one
    d.status(2, 3, 1); // someone left lobby 2
    expect(d.join("j").at(-1)).toEqual({ type: "reply", value: { lobby: L(2) } });
    d.status(1, 2, 1);
    expect(d.join("k").at(-1)).toEqual({ type: "reply", value: { lobby: L(1) } });
  });

  it("a lobby's report replaces its count; a late report (lower version) is ignored", () => {
    const d = directory();
    d.join("a");
    d.status(1, 1, 2);
    d.status(1, 3, 1);
    expect(d.rows()).toEqual([[L(1), 1, true]]);
  });

  it("a lobby that started or closed is forgotten, and a late report of it cannot bring it back", () => {
    const d = directory();
    d.join("a");
    d.join("b");
    expect(d.send({ type: "lobbyClosed", lobby: L(1) })).toEqual([]);
    d.status(1, 2, 5);
    expect(d.state.lobbies).toEqual([]);
    // Lobby numbers are never reused.
    expect(d.join("c")[0]).toEqual(spawn(2));
  });

  it("the overflow race: the chosen lobby filled meanwhile, refuses FULL, and asking again with `full` finds room elsewhere", () => {
    const d = directory();
    for (const p of ["a", "b", "c"]) d.join(p);
    d.status(1, 3, 3);
    // The directory sends erin to lobby 1 ...
    expect(d.join("erin").at(-1)).toEqual({ type: "reply", value: { lobby: L(1) } });
    // ... but a player sent there earlier got the last place first: the lobby itself refuses erin.
    const lobby = activityLobbyOf(["a", "b", "c", "dave"]);
    expectLobbyRefused(lobby, { type: "join", player: player("erin") }, "FULL");
    // The gateway asks again, naming the lobby that refused: it counts as full and erin goes to a new lobby.
    expect(d.join("erin", { full: L(1) })).toEqual([spawn(2), { type: "reply", value: { lobby: L(2) } }]);
    expect(d.rows()).toEqual([
      [L(1), 4, false],
      [L(2), 1, true],
    ]);
    // Lobby 1's own reports take over again: a newer one reopens it when a place frees up.
    d.status(1, 4, 4, false);
    d.status(1, 3, 5, true);
    expect(d.join("fred").at(-1)).toEqual({ type: "reply", value: { lobby: L(1) } });
  });

  it("a player already in one of the activity's waiting lobbies is sent back to it, nothing reserved", () => {
    const d = directory();
    d.join("alice");
    const before = d.state;
    expect(d.join("alice", { previous: L(1) })).toEqual([{ type: "reply", value: { lobby: L(1) } }]);
    expect(d.state).toBe(before);
  });

  it("joining from another activity's lobby tells that lobby `leave`", () => {
    const d = directory("survival");
    expect(d.join("alice", { previous: L(1) })).toEqual([
      {
        type: "spawn",
        key: "activityLobby/survival/1",
        init: { settings: activitySettingsSchema.parse(survival) },
      },
      { type: "tell", to: L(1), message: { type: "leave", player: "alice" } },
      { type: "reply", value: { lobby: "activityLobby/survival/1" } },
    ]);
  });

  it("refuses NOT_FOUND once an activity is no longer configured; a key naming none is never created", () => {
    const d = directory();
    const unconfigured = activityDirectoryKind({ activities: [survival] });
    const before = d.state;
    expect(
      unconfigured.handle(
        before,
        { type: "join", player: player("a") },
        testContext({ key: "activity/race" }),
      ),
    ).toEqual({
      state: before,
      effects: [{ type: "reject", code: "NOT_FOUND", message: "no activity race is configured" }],
    });
    expect(() => unconfigured.create(undefined, testContext({ key: "activity/race" }))).toThrow(RangeError);
  });

  it("refuses malformed joins and reports at parse", () => {
    const d = directory();
    expect(d.kind.parse({ type: "join", player: player("a"), previous: "lobby/ABC123" })).toBeUndefined();
    expect(
      d.kind.parse({ type: "lobbyStatus", lobby: L(1), players: -1, open: true, version: 1 }),
    ).toBeUndefined();
  });
});
