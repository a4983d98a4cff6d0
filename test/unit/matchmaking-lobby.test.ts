import { describe, expect, it } from "vitest";
import type { LobbyStatus } from "../../actors/matchmaking/index.ts";
import {
  cursorParty,
  duel,
  gp,
  matchedLobby,
  ofType,
  pushed,
  withRules,
} from "./support/matchmaking-driver.ts";

/** SPEC §3: a matched lobby's timetable, rating, teams and every start rule, on the fake clock. */

const Q = "queue/duel";
const L = "mmlobby/duel/1";

/** Fills the duel lobby: alice (red), bob (blue), carol (red), dave (blue). */
function fullDuel(type = duel) {
  const l = matchedLobby(type);
  l.join([gp("bob")]);
  l.join([gp("carol")]);
  l.join([gp("dave")]);
  return l;
}

const readyAll = (l: ReturnType<typeof matchedLobby>) => l.ids().flatMap((id) => l.ready(id));
const spawned = (effects: readonly { type: string }[]) => effects.filter((e) => e.type === "spawn").length;

describe("a new matched lobby", () => {
  it("is owned by its creator, early, with its timetable armed as game timers and reported to its queue", () => {
    const l = matchedLobby(duel);
    const t0 = l.t0;
    expect(l.state.owner).toBe("alice");
    expect(l.state.phase).toBe("early");
    expect(l.state.timetable).toEqual({
      createdAt: t0,
      early: t0 + 10_000,
      onTime: t0 + 60_000,
      tooLate: t0 + 120_000,
    });
    expect(ofType(l.created, "timer")).toEqual([
      { type: "timer", name: "early", at: t0 + 10_000, kind: "game" },
      { type: "timer", name: "onTime", at: t0 + 60_000, kind: "game" },
      { type: "timer", name: "tooLate", at: t0 + 120_000, kind: "game" },
    ]);
    const [report] = ofType(l.created, "tell");
    expect(report?.to).toBe(Q);
    expect(report?.message).toMatchObject({
      type: "lobbyStatus",
      lobby: L,
      version: 1,
      open: true,
      free: { red: 1, blue: 2 },
    });
  });

  it("its rating is the mean of its members' ratings, and every change is reported with the next version", () => {
    const l = matchedLobby(duel, [gp("alice", 100)]);
    l.join([gp("bob", 200)]);
    const effects = l.join([gp("carol", 60)]);
    const report = ofType(effects, "tell")
      .map((t) => t.message as { type: string })
      .find((m) => m.type === "lobbyStatus") as LobbyStatus;
    expect(report.rating).toBe(120);
    expect(report.version).toBe(3);
  });
});

describe("teams", () => {
  it("autoAssign places each joiner in the team with the most free room (the first on a tie)", () => {
    const l = fullDuel();
    expect(l.state.members.map((m) => [m.id, m.team])).toEqual([
      ["alice", "red"],
      ["bob", "blue"],
      ["carol", "red"],
      ["dave", "blue"],
    ]);
  });

  it("a request naming a team joins it; a group that does not fit is refused to the queue and nothing changes", () => {
    const l = matchedLobby(duel);
    l.join([gp("bob")], "red");
    expect(l.state.members.map((m) => m.team)).toEqual(["red", "red"]);
    const before = l.state;
    const effects = l.join([gp("carol")], "red");
    expect(l.state).toBe(before);
    expect(ofType(effects, "tell")).toEqual([
      { type: "tell", to: Q, message: { type: "joinResult", entry: "e3", lobby: L, ok: false } },
    ]);
  });

  it("a party joins together in one team, or not at all", () => {
    const l = matchedLobby(duel);
    l.join([gp("bob"), gp("carol")]);
    expect(l.state.members.map((m) => [m.id, m.team])).toEqual([
      ["alice", "red"],
      ["bob", "blue"],
      ["carol", "blue"],
    ]);
    l.join([gp("dave"), gp("erin")]);
    expect(l.ids()).toEqual(["alice", "bob", "carol"]);
  });
});

describe("start rules", () => {
  it("full and ready: starts at the earliest start, not before", () => {
    const l = fullDuel();
    expect(spawned(readyAll(l))).toBe(0);
    const effects = l.fire("early", l.t0 + 10_000);
    expect(spawned(effects)).toBe(1);
    expect(l.state.phase).toBe("playing");
  });

  it("full and ready in pre_game: starts at once", () => {
    const l = fullDuel();
    l.fire("early", l.t0 + 10_000);
    l.ready("alice");
    l.ready("bob");
    l.ready("carol");
    expect(spawned(l.ready("dave"))).toBe(1);
  });

  it("ready but not full waits for onTime without allowEarlyStartWithoutMax", () => {
    const l = matchedLobby(duel);
    l.join([gp("bob")]);
    l.fire("early", l.t0 + 10_000);
    expect(spawned(readyAll(l))).toBe(0);
    expect(l.state.phase).toBe("pre_game");
    expect(spawned(l.fire("onTime", l.t0 + 60_000))).toBe(1);
  });

  it("allowEarlyStartWithoutMax: ready is enough", () => {
    const l = matchedLobby(withRules(duel, { allowEarlyStartWithoutMax: true }));
    l.join([gp("bob")]);
    l.fire("early", l.t0 + 10_000);
    l.ready("alice");
    expect(spawned(l.ready("bob"))).toBe(1);
  });

  it("ready needs every team at minUsers, everyReadyMinNum ready and everyReadyMinPercent % ready", () => {
    const type = withRules(cursorParty, { everyReadyMinNum: 2, everyReadyMinPercent: 60 });
    const l = matchedLobby(type);
    l.join([gp("bob")]);
    l.join([gp("carol")]);
    l.fire("early", l.t0 + 1_000);
    expect(spawned(l.ready("alice"))).toBe(0); // 1 ready: below the number
    const l2 = matchedLobby(withRules(type, { everyReadyMinNum: 1 }));
    l2.join([gp("bob")]);
    l2.join([gp("carol")]);
    l2.fire("early", l2.t0 + 1_000);
    expect(spawned(l2.ready("alice"))).toBe(0); // 33 %: below the share
    expect(spawned(l2.ready("bob"))).toBe(1); // 67 %
    expect(spawned(l.ready("bob"))).toBe(1); // 2 ready, 67 %
  });

  it("at onTime without ready and without forceOnTimeStartWithoutReady: no start, then tooLate disbands", () => {
    const l = fullDuel();
    l.fire("early", l.t0 + 10_000);
    expect(spawned(l.fire("onTime", l.t0 + 60_000))).toBe(0);
    const effects = l.fire("tooLate", l.t0 + 120_000);
    expect(pushed(effects)).toEqual([["lobbyDisbanded", ["alice", "bob", "carol", "dave"]]]);
    expect(ofType(effects, "push")[0]?.frame).toEqual({
      type: "lobbyDisbanded",
      lobby: L,
      reason: "tooLate",
    });
    expect(ofType(effects, "tell")).toEqual([
      { type: "tell", to: Q, message: { type: "lobbyClosed", lobby: L } },
    ]);
    expect(effects.at(-1)).toEqual({ type: "stop" });
  });

  it("forceOnTimeStartWithoutReady: starts at onTime unready once every team has its minUsers", () => {
    const l = matchedLobby(withRules(duel, { forceOnTimeStartWithoutReady: true }));
    l.join([gp("bob")]);
    expect(spawned(l.fire("onTime", l.t0 + 60_000))).toBe(1);
  });

  it("forceOnTimeStartWithoutReady does not start a lobby with a team below minUsers", () => {
    const l = matchedLobby(withRules(duel, { forceOnTimeStartWithoutReady: true }));
    expect(spawned(l.fire("onTime", l.t0 + 60_000))).toBe(0);
    expect(l.fire("tooLate", l.t0 + 120_000).at(-1)).toEqual({ type: "stop" });
  });

  it("onTime = tooLate (the seed's 300 s): the start wins whichever timer fires first", () => {
    const l = matchedLobby(cursorParty);
    const effects = l.fire("tooLate", l.t0 + 300_000);
    expect(spawned(effects)).toBe(1);
    expect(pushed(effects).map(([type]) => type)).not.toContain("lobbyDisbanded");
    expect(spawned(l.fire("onTime"))).toBe(0);
  });

  it("disbandOnStart: the lobby ends as its room starts", () => {
    const l = matchedLobby(withRules(cursorParty, { disbandOnStart: true }));
    l.fire("early", l.t0 + 1_000);
    const effects = l.ready("alice");
    expect(spawned(effects)).toBe(1);
    expect(ofType(effects, "push").at(-1)?.frame).toEqual({
      type: "lobbyDisbanded",
      lobby: "mmlobby/CursorPartyV2/1",
      reason: "started",
    });
    expect(ofType(effects, "tell").at(-1)?.message).toEqual({
      type: "lobbyClosed",
      lobby: "mmlobby/CursorPartyV2/1",
    });
    expect(effects.at(-1)).toEqual({ type: "stop" });
  });
});

describe("the room", () => {
  it("is spawned as room/<CODE> with the private lobby's init shape: owner as host, the type as mode, seats by team", () => {
    const l = fullDuel();
    readyAll(l);
    const effects = l.fire("early", l.t0 + 10_000);
    const [spawn] = ofType(effects, "spawn");
    const code = l.state.room!;
    expect(spawn).toEqual({
      type: "spawn",
      key: `room/${code}`,
      init: {
        code,
        lobby: L,
        mode: "duel",
        host: "alice",
        seats: [
          { seat: 1, team: 0, player: "alice" },
          { seat: 2, team: 1, player: "bob" },
          { seat: 3, team: 0, player: "carol" },
          { seat: 4, team: 1, player: "dave" },
        ],
      },
      quietIfFailed: true,
    });
    expect(pushed(effects)).toContainEqual(["lobbyStarted", ["alice", "bob", "carol", "dave"]]);
  });

  it("joins are refused once started unless allowJoinInProgress", () => {
    const l = matchedLobby(duel);
    l.join([gp("bob")]);
    l.fire("onTime", l.t0 + 60_000); // not ready: nothing
    readyAll(l);
    expect(l.state.phase).toBe("playing");
    const before = l.state;
    const refused = l.join([gp("carol")]);
    expect(l.state).toBe(before);
    expect(ofType(refused, "tell")[0]?.message).toMatchObject({ type: "joinResult", ok: false });

    const open = matchedLobby(cursorParty);
    open.fire("early", open.t0 + 1_000);
    open.ready("alice");
    expect(open.state.phase).toBe("playing");
    const joined = open.join([gp("bob")]);
    expect(ofType(joined, "tell")[0]?.message).toMatchObject({ type: "joinResult", ok: true });
    expect(ofType(joined, "push").find((p) => p.frame.type === "lobbyStarted")?.to).toEqual(["bob"]);
  });

  it("roomEnded: back to a new round with a fresh timetable and nobody ready", () => {
    const l = matchedLobby(withRules(duel, { allowEarlyStartWithoutMax: true }));
    l.join([gp("bob")]);
    l.fire("early", l.t0 + 10_000);
    readyAll(l);
    const ended = l.ctx.advance(30_000);
    l.send({ type: "roomEnded", room: l.state.room });
    expect(l.state).toMatchObject({ phase: "early", round: 2, room: null });
    expect(l.state.timetable).toEqual({
      createdAt: ended,
      early: ended + 10_000,
      onTime: ended + 60_000,
      tooLate: ended + 120_000,
    });
    expect(l.state.members.every((m) => !m.isReady)).toBe(true);
  });

  it("a failed spawn keeps the start and tries again under a new code; a full node waits too", () => {
    const l = matchedLobby(cursorParty, [gp("alice")], { canOpenRoom: false });
    l.fire("early", l.t0 + 1_000);
    const held = l.ready("alice");
    expect(spawned(held)).toBe(0);
    expect(l.state.phase).toBe("starting");
    expect(ofType(held, "timer")).toContainEqual({
      type: "timer",
      name: "startRetry",
      at: l.ctx.now + 1000,
      kind: "game",
    });
    l.ctx.node = { canOpenRoom: true, draining: false };
    expect(spawned(l.fire("startRetry", l.ctx.now + 1000))).toBe(1);
    const first = l.state.room!;
    l.send({ type: "spawnFailed", key: `room/${first}` });
    expect(l.state).toMatchObject({ phase: "starting", room: null });
    expect(spawned(l.fire("startRetry", l.ctx.now + 1000))).toBe(1);
    expect(l.state.room).not.toBe(first);
  });
});

describe("leaving", () => {
  it("the owner's leaving passes ownership on; the last member's ends the lobby", () => {
    const l = matchedLobby(duel);
    l.join([gp("bob")]);
    l.send({ type: "leave", player: "alice" });
    expect(l.state.owner).toBe("bob");
    const effects = l.send({ type: "leave", player: "bob" });
    expect(ofType(effects, "tell").at(-1)?.message).toEqual({ type: "lobbyClosed", lobby: L });
    expect(effects.at(-1)).toEqual({ type: "stop" });
  });

  it("a stranger's leave is refused with the state unchanged", () => {
    const l = matchedLobby(duel);
    const before = l.state;
    expect(l.send({ type: "leave", player: "zed" })).toEqual([
      { type: "reject", code: "NOT_IN_LOBBY", message: "zed is not in mmlobby/duel/1" },
    ]);
    expect(l.state).toBe(before);
  });
});
