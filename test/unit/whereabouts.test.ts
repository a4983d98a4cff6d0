import { describe, expect, it } from "vitest";
import { decideEntry, type Entry, type Whereabouts } from "../../actors/player/index.ts";

/** The one rule of where a player may be: every place it can be in, against every way in. */

const queue = "queue/chess";
const alone = { queue, entry: "e1", party: null };
const asHost = { queue, entry: "e2", party: { lobby: "lobby/AAAA", host: "me" } };
const asMember = { queue, entry: "e2", party: { lobby: "lobby/AAAA", host: "ann" } };

/** Every place a player can be in (the rule's input), by name. */
const places: Record<string, Whereabouts> = {
  nowhere: { lobby: null, search: null, room: null },
  privateLobby: { lobby: "lobby/AAAA", search: null, room: null },
  activityLobby: { lobby: "activityLobby/race/1", search: null, room: null },
  matchedLobby: { lobby: "mmlobby/chess/1", search: null, room: null },
  searching: { lobby: null, search: alone, room: null },
  partyHost: { lobby: "lobby/AAAA", search: asHost, room: null },
  partyMember: { lobby: "lobby/AAAA", search: asMember, room: null },
  lobbyRoom: { lobby: "lobby/AAAA", search: null, room: "room/QQQQQQ" },
  directRoom: { lobby: null, search: null, room: "room/QQQQQQ" },
  // A party placed in a matched lobby: its members keep their private lobby beside it.
  partyPlaced: { lobby: "lobby/AAAA", search: null, room: null, matched: "mmlobby/chess/1" },
};

/** Every way in. */
const entries: Record<string, Entry> = {
  sameLobby: { kind: "lobby", key: "lobby/AAAA" },
  otherLobby: { kind: "lobby", key: "lobby/BBBB" },
  newLobby: { kind: "lobby", key: null },
  activity: { kind: "activity", activity: "race" },
  otherActivity: { kind: "activity", activity: "quiz" },
  search: { kind: "search", queue },
  otherSearch: { kind: "search", queue: "queue/go" },
  partySearch: { kind: "partySearch", queue, lobby: "lobby/AAAA", host: "me" },
  sameRoom: { kind: "room", key: "room/QQQQQQ" },
  otherRoom: { kind: "room", key: "room/RRRRRR" },
  newRoom: { kind: "room", key: null },
};

const L = (lobby: string) => ({ lobby });
const S = (search: typeof alone) => ({ search });
const ok = (...leave: object[]) => ({ ok: true, leave });
const no = (code: string) => ({ ok: false, code });

/** What the rule answers for each place × entry: departures, or the refusal's code. */
const expected: Record<string, Record<string, object>> = {
  nowhere: {
    sameLobby: ok(),
    otherLobby: ok(),
    newLobby: ok(),
    activity: ok(),
    otherActivity: ok(),
    search: ok(),
    otherSearch: ok(),
    partySearch: no("NOT_IN_LOBBY"),
    sameRoom: ok(),
    otherRoom: ok(),
    newRoom: ok(),
  },
  privateLobby: {
    sameLobby: ok(),
    otherLobby: ok(L("lobby/AAAA")),
    newLobby: ok(L("lobby/AAAA")),
    activity: ok(L("lobby/AAAA")),
    otherActivity: ok(L("lobby/AAAA")),
    search: ok(L("lobby/AAAA")),
    otherSearch: ok(L("lobby/AAAA")),
    partySearch: ok(),
    sameRoom: ok(),
    otherRoom: ok(),
    newRoom: ok(),
  },
  activityLobby: {
    sameLobby: ok(L("activityLobby/race/1")),
    otherLobby: ok(L("activityLobby/race/1")),
    newLobby: ok(L("activityLobby/race/1")),
    // A move between lobbies of one activity is its directory's.
    activity: ok(),
    otherActivity: ok(L("activityLobby/race/1")),
    search: ok(L("activityLobby/race/1")),
    otherSearch: ok(L("activityLobby/race/1")),
    partySearch: no("NOT_IN_LOBBY"),
    sameRoom: ok(),
    otherRoom: ok(),
    newRoom: ok(),
  },
  matchedLobby: {
    sameLobby: ok(L("mmlobby/chess/1")),
    otherLobby: ok(L("mmlobby/chess/1")),
    newLobby: ok(L("mmlobby/chess/1")),
    activity: ok(L("mmlobby/chess/1")),
    otherActivity: ok(L("mmlobby/chess/1")),
    search: ok(L("mmlobby/chess/1")),
    otherSearch: ok(L("mmlobby/chess/1")),
    partySearch: no("NOT_IN_LOBBY"),
    sameRoom: ok(),
    otherRoom: ok(),
    newRoom: ok(),
  },
  searching: {
    sameLobby: ok(S(alone)),
    otherLobby: ok(S(alone)),
    newLobby: ok(S(alone)),
    activity: ok(S(alone)),
    otherActivity: ok(S(alone)),
    // The same queue refuses a second search itself.
    search: ok(),
    otherSearch: ok(S(alone)),
    partySearch: no("NOT_IN_LOBBY"),
    sameRoom: ok(S(alone)),
    otherRoom: ok(S(alone)),
    newRoom: ok(S(alone)),
  },
  partyHost: {
    sameLobby: ok(),
    otherLobby: no("SEARCHING"),
    newLobby: no("SEARCHING"),
    activity: no("SEARCHING"),
    otherActivity: no("SEARCHING"),
    search: no("SEARCHING"),
    otherSearch: no("SEARCHING"),
    // Asked again (a retry): nothing more to do.
    partySearch: ok(),
    sameRoom: no("SEARCHING"),
    otherRoom: no("SEARCHING"),
    newRoom: no("SEARCHING"),
  },
  partyMember: {
    sameLobby: ok(),
    otherLobby: no("SEARCHING"),
    newLobby: no("SEARCHING"),
    activity: no("SEARCHING"),
    otherActivity: no("SEARCHING"),
    search: no("SEARCHING"),
    otherSearch: no("SEARCHING"),
    partySearch: ok(),
    sameRoom: no("SEARCHING"),
    otherRoom: no("SEARCHING"),
    newRoom: no("SEARCHING"),
  },
  lobbyRoom: {
    // Back to its own lobby and room: the state is sent again.
    sameLobby: ok(),
    otherLobby: no("ALREADY_PLAYING"),
    newLobby: no("ALREADY_PLAYING"),
    activity: no("ALREADY_PLAYING"),
    otherActivity: no("ALREADY_PLAYING"),
    search: no("ALREADY_PLAYING"),
    otherSearch: no("ALREADY_PLAYING"),
    partySearch: no("ALREADY_PLAYING"),
    sameRoom: ok(),
    otherRoom: no("ALREADY_PLAYING"),
    newRoom: no("ALREADY_PLAYING"),
  },
  partyPlaced: {
    // Back to its private lobby (a reconnect): nothing to leave.
    sameLobby: ok(),
    otherLobby: ok(L("lobby/AAAA"), L("mmlobby/chess/1")),
    newLobby: ok(L("lobby/AAAA"), L("mmlobby/chess/1")),
    activity: ok(L("lobby/AAAA"), L("mmlobby/chess/1")),
    otherActivity: ok(L("lobby/AAAA"), L("mmlobby/chess/1")),
    search: ok(L("lobby/AAAA"), L("mmlobby/chess/1")),
    otherSearch: ok(L("lobby/AAAA"), L("mmlobby/chess/1")),
    partySearch: ok(L("mmlobby/chess/1")),
    sameRoom: ok(),
    otherRoom: ok(),
    newRoom: ok(),
  },
  directRoom: {
    sameLobby: no("ALREADY_PLAYING"),
    otherLobby: no("ALREADY_PLAYING"),
    newLobby: no("ALREADY_PLAYING"),
    activity: no("ALREADY_PLAYING"),
    otherActivity: no("ALREADY_PLAYING"),
    search: no("ALREADY_PLAYING"),
    otherSearch: no("ALREADY_PLAYING"),
    partySearch: no("ALREADY_PLAYING"),
    sameRoom: ok(),
    otherRoom: no("ALREADY_PLAYING"),
    newRoom: no("ALREADY_PLAYING"),
  },
};

describe("where a player may be: the rule, for every place and every way in", () => {
  for (const [placeName, where] of Object.entries(places)) {
    for (const [entryName, entry] of Object.entries(entries)) {
      it(`${placeName} → ${entryName}`, () => {
        const want = expected[placeName]?.[entryName];
        expect(want, "every pair has an expected answer").toBeDefined();
        expect(decideEntry(where, entry)).toMatchObject(want!);
      });
    }
  }

  it("a refusal says why, and names the place that holds the player", () => {
    const seated = decideEntry(places.lobbyRoom!, entries.search!);
    expect(seated).toMatchObject({ ok: false, message: expect.stringContaining("room/QQQQQQ") as string });
    const party = decideEntry(places.partyMember!, entries.otherLobby!);
    expect(party).toMatchObject({ ok: false, message: expect.stringContaining("lobby/AAAA") as string });
  });
});
