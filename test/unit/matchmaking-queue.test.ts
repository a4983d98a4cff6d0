import { describe, expect, it } from "vitest";
import { joinFailMessage, type MatchedLobbyInit } from "../../actors/matchmaking/index.ts";
import { cursorParty, find, ofType, queue } from "./support/matchmaking-driver.ts";

/** SPEC §3: the queue of a lobby type — steps, order, JOIN_FAIL, find-or-create, filters, lobby reports. */

const L = (n: number) => `mmlobby/CursorPartyV2/${n}`;
const joinsOf = (effects: readonly { type: string }[]) =>
  ofType(effects as never, "tell")
    .filter((t) => (t.message as { type: string }).type === "join")
    .map((t) => [t.to, (t.message as { group: { entry: string } }).group.entry]);

describe("the queue", () => {
  it("answers a request with its entry and arms the step timer", () => {
    const q = queue(cursorParty);
    expect(q.send(find("alice", 100))).toEqual([
      { type: "reply", value: { entry: "e1" } },
      { type: "timer", name: "step", at: q.ctx.now + 2000, kind: "game" },
    ]);
    expect(q.send(find("bob", 100))).toEqual([{ type: "reply", value: { entry: "e2" } }]);
  });

  it("a lobby type's own stepSeconds beats the node's", () => {
    const q = queue({ ...cursorParty, stepSeconds: 0.5 }, { stepSeconds: 3 });
    expect(q.send(find("alice", 100))).toContainEqual({
      type: "timer",
      name: "step",
      at: q.ctx.now + 500,
      kind: "game",
    });
    const node = queue(cursorParty, { stepSeconds: 3 });
    expect(node.send(find("alice", 100))).toContainEqual({
      type: "timer",
      name: "step",
      at: node.ctx.now + 3000,
      kind: "game",
    });
  });

  it("processes the oldest entry (highest step) first: it gets the one free place", () => {
    const q = queue(cursorParty);
    q.send(find("newcomer-first", 100, { maxSteps: 5 })); // e1, will miss once
    q.step();
    q.send(find("later", 100)); // e2, step 0
    // One lobby with one free place, reachable by both.
    q.report(L(9), 1, 100, { free: { all: 1 } });
    const effects = q.step();
    expect(joinsOf(effects)).toEqual([[L(9), "e1"]]);
    expect(q.state.entries.map((e) => [e.id, e.step, e.stage.status])).toEqual([
      ["e1", 1, "placing"],
      ["e2", 1, "waiting"],
    ]);
  });

  it("on equal steps, arrival order decides", () => {
    const q = queue(cursorParty);
    q.send(find("a", 100));
    q.send(find("b", 100));
    q.report(L(9), 1, 100, { free: { all: 1 } });
    expect(joinsOf(q.step())).toEqual([[L(9), "e1"]]);
  });

  it("a findLobby that matched nothing by maxSteps fails with JOIN_FAIL to the requester and its party", () => {
    const q = queue(cursorParty);
    q.send(find("alice", 100, { party: [{ id: "bob", name: "BOB" }] }));
    q.report(L(9), 1, 500); // far off
    expect(q.step()).toEqual([{ type: "timer", name: "step", at: q.ctx.now + 2000, kind: "game" }]);
    q.step();
    const effects = q.step();
    expect(effects).toEqual([
      {
        type: "push",
        to: ["alice", "bob"],
        frame: {
          type: "matchmakingFailed",
          lobbyType: "CursorPartyV2",
          entry: "e1",
          code: "JOIN_FAIL",
          message: joinFailMessage,
        },
      },
      // The party's search is over: each registry lets its player go.
      ...["alice", "bob"].map((p) => ({
        type: "tell",
        to: `player/${p}`,
        message: { type: "searchEnded", queue: "queue/CursorPartyV2", entry: "e1" },
      })),
    ]);
    expect(joinFailMessage).toBe("No lobbies found matching criteria");
    expect(q.state.entries).toEqual([]);
    expect(q.state.tickAt).toBeNull();
  });

  it("a findOrCreateLobby that matched nothing by maxSteps creates a lobby it owns; the next searcher joins it", () => {
    const q = queue(cursorParty);
    q.send(
      find(
        "alice",
        100,
        { maxSteps: 1, settings: { level: 3 }, pingData: { us: 80, eu: 20 } },
        "findOrCreateLobby",
      ),
    );
    const effects = q.step();
    const [spawn] = ofType(effects, "spawn");
    expect(spawn?.key).toBe(L(1));
    const init = spawn?.init as MatchedLobbyInit;
    expect(init).toMatchObject({ queue: "queue/CursorPartyV2", region: "eu", settings: { level: 3 } });
    expect(init.group.players.map((p) => p.id)).toEqual(["alice"]);
    expect(q.state.lobbies.map((l) => [l.lobby, l.version, l.rating, l.free])).toEqual([
      [L(1), 0, 100, { all: 7 }],
    ]);
    q.send(find("bob", 105));
    expect(joinsOf(q.step())).toEqual([[L(1), "e2"]]);
  });

  it("createLobby opens its lobby at once", () => {
    const q = queue(cursorParty);
    const effects = q.send({ type: "createLobby", player: { id: "alice", name: "ALICE" }, rating: 50 });
    expect(ofType(effects, "spawn")[0]?.key).toBe(L(1));
    expect(effects.at(-1)).toEqual({ type: "reply", value: { entry: "e1", lobby: L(1) } });
    expect(q.state.entries).toEqual([]);
  });

  it("ranges widen by step: a lobby out of reach at step 0 is found at step 1", () => {
    const q = queue(cursorParty);
    q.send(find("alice", 100)); // ±10, then ±20
    q.report(L(9), 1, 115);
    expect(joinsOf(q.step())).toEqual([]);
    expect(joinsOf(q.step())).toEqual([[L(9), "e1"]]);
  });

  it("a lobby's join answer ends the entry, or sends it back to search at the same step", () => {
    const q = queue(cursorParty);
    q.send(find("alice", 100));
    q.send(find("bob", 100));
    q.report(L(9), 1, 100);
    q.step();
    q.send({ type: "joinResult", entry: "e1", lobby: L(9), ok: true });
    expect(q.state.entries.map((e) => e.id)).toEqual(["e2"]);
    q.send({ type: "joinResult", entry: "e2", lobby: L(9), ok: false });
    expect(q.state.entries.map((e) => [e.id, e.step, e.stage.status])).toEqual([["e2", 0, "waiting"]]);
    expect(q.state.lobbies[0]?.open).toBe(false);
  });

  it("keeps its view current from lobby reports: newer versions replace, older are ignored, closed lobbies go", () => {
    const q = queue(cursorParty);
    q.report(L(1), 2, 100);
    q.report(L(1), 1, 999);
    expect(q.state.lobbies.map((l) => [l.version, l.rating])).toEqual([[2, 100]]);
    q.report(L(1), 3, 140);
    expect(q.state.lobbies.map((l) => [l.version, l.rating])).toEqual([[3, 140]]);
    q.send({ type: "lobbyClosed", lobby: L(1) });
    expect(q.state.lobbies).toEqual([]);
  });

  it("refuses a player already queued, and a team the type does not have, with the state unchanged", () => {
    const q = queue(cursorParty);
    q.send(find("alice", 100));
    const before = q.state;
    expect(q.send(find("alice", 100))[0]).toMatchObject({ type: "reject", code: "INVALID" });
    expect(q.send(find("bob", 100, { team: "red" }))[0]).toMatchObject({ type: "reject", code: "INVALID" });
    expect(q.state).toBe(before);
  });

  it("cancel removes a waiting entry", () => {
    const q = queue(cursorParty);
    q.send(find("alice", 100));
    expect(q.send({ type: "cancel", player: "alice" })).toEqual([
      { type: "cancelTimer", name: "entry:e1" },
      { type: "reply" },
    ]);
    expect(q.state.entries).toEqual([]);
  });
});

describe("filters", () => {
  const filtered = { ...cursorParty, filter: "levels" };

  function filtering() {
    const q = queue(filtered, { filterTimeoutMs: 500 });
    q.send(find("alice", 100, { filter: { level: 5 } }));
    q.report(L(1), 1, 101);
    q.report(L(2), 1, 100);
    const effects = q.step();
    return Object.assign(q, { effects });
  }

  it("candidates that passed the algorithm go to the filter, best rating first, with the seed's data", () => {
    const q = filtering();
    const requests = ofType(q.effects, "tell");
    expect(requests.map((r) => [r.to, (r.message as { lobby: string }).lobby])).toEqual([
      ["filters/levels", L(2)],
      ["filters/levels", L(1)],
    ]);
    expect(requests[0]?.message).toMatchObject({
      type: "filterRequest",
      queue: "queue/CursorPartyV2",
      entry: "e1",
      data: {
        step: 0,
        filter: { level: 5 },
        matchCandidate: { id: L(2), lobbyType: "CursorPartyV2", state: "pre_game" },
      },
    });
    expect(q.state.entries[0]?.stage.status).toBe("filtering");
  });

  it("the best accepted candidate gets the group once every verdict is in", () => {
    const q = filtering();
    expect(q.send({ type: "filterVerdict", entry: "e1", lobby: L(2), accept: false })).toEqual([]);
    const effects = q.send({ type: "filterVerdict", entry: "e1", lobby: L(1), accept: true });
    expect(joinsOf(effects)).toEqual([[L(1), "e1"]]);
  });

  it("a missing verdict at the deadline counts as reject; with none accepted the entry steps on", () => {
    const q = filtering();
    q.send({ type: "filterVerdict", entry: "e1", lobby: L(2), accept: false });
    const effects = q.fire("entry:e1", q.ctx.now + 500);
    expect(joinsOf(effects)).toEqual([]);
    expect(q.state.entries.map((e) => [e.step, e.stage.status])).toEqual([[1, "waiting"]]);
    // A verdict after the deadline changes nothing.
    expect(q.send({ type: "filterVerdict", entry: "e1", lobby: L(1), accept: true })).toEqual([]);
  });
});
