import { describe, expect, it } from "vitest";
import {
  joinFailMessage,
  takeOut,
  queueOptionsSchema,
  upgradeQueueState,
  lobbyTypeSchema,
  type LobbyTypeInput,
} from "../../actors/matchmaking/index.ts";
import { duel, find, ofType, pushed, queue } from "./support/matchmaking-driver.ts";

/** SPEC §4: a queue that matches full groups itself and asks every player to accept. */

/** One red and one black player; the queue asks both, 10 s to answer. */
const chess: LobbyTypeInput = {
  id: "chess",
  teams: [
    { code: "red", minUsers: 1, maxUsers: 1, autoAssign: true },
    { code: "black", minUsers: 1, maxUsers: 1, autoAssign: true },
  ],
  rules: duel.rules,
  queueAccept: { timeoutSecs: 10 },
};

const host = { node: "n2", url: "ws://n2.example:7350/ws" };
const M1 = "queue/chess#1";

/** A chess queue on a node whose load view names `host` for new rooms. */
function chessQueue(node: { roomHost?: typeof host } = { roomHost: host }) {
  return queue(chess, {}, node);
}

/** Alice and Bob, both rated 100, matched at the first step. */
function matched() {
  const q = chessQueue();
  q.send(find("alice", 100));
  q.send(find("bob", 105));
  const effects = q.step();
  return Object.assign(q, { effects, acceptBy: q.ctx.now + 10_000 });
}

const stages = (q: ReturnType<typeof chessQueue>) =>
  q.state.entries.map((e) => [e.player.id, e.stage.status, e.front]);

describe("the queue's accept phase", () => {
  it("a full group is taken out together: each player hears matchFound and the accept deadline is armed", () => {
    const q = matched();
    expect(ofType(q.effects, "spawn")).toEqual([]);
    expect(ofType(q.effects, "push")).toEqual([
      {
        type: "push",
        to: ["alice", "bob"],
        frame: { type: "matchFound", queue: "queue/chess", matchId: M1, acceptBy: q.acceptBy },
      },
    ]);
    expect(ofType(q.effects, "timer")).toEqual([
      { type: "timer", name: `match:${M1}`, at: q.acceptBy, kind: "game" },
    ]);
    expect(stages(q)).toEqual([
      ["alice", "matched", false],
      ["bob", "matched", false],
    ]);
    expect(q.state.matches.map((m) => m.seats)).toEqual([
      [
        { player: "alice", team: "red" },
        { player: "bob", team: "black" },
      ],
    ]);
  });

  it("nobody is matched until every team is full, and players out of the window are not matched", () => {
    const q = chessQueue();
    q.send(find("alice", 100));
    q.step();
    expect(q.state.matches).toEqual([]);
    q.send(find("far", 300));
    q.step();
    expect(q.state.matches).toEqual([]);
    expect(stages(q)).toEqual([
      ["alice", "waiting", false],
      ["far", "waiting", false],
    ]);
  });

  it("the take-out is atomic: if one of the group left, nobody is taken and nothing changes", () => {
    const q = chessQueue();
    q.send(find("alice", 100));
    q.send(find("bob", 100));
    q.send({ type: "cancel", player: "bob" });
    const env = {
      lobbyType: lobbyTypeSchema.parse(chess),
      options: queueOptionsSchema.parse({}),
      ctx: q.ctx,
    };
    const before = q.state;
    const proposal = {
      entries: ["e1", "e2"],
      seats: [
        { player: "alice", team: "red" },
        { player: "bob", team: "black" },
      ],
    };
    expect(takeOut(before, proposal, env)).toBeUndefined();
    expect(q.state).toBe(before);
    expect(stages(q)).toEqual([["alice", "waiting", false]]);
  });

  it("every accept: the room opens on the load view's node and each player gets matchReady with its own token", () => {
    const q = matched();
    expect(q.send({ type: "accept", player: "alice", matchId: M1 })).toEqual([{ type: "reply" }]);
    const effects = q.send({ type: "accept", player: "bob", matchId: M1 });
    const [spawn] = ofType(effects, "spawn");
    expect(spawn?.key).toMatch(/^room\/[A-Z]{6}$/);
    // Placed on the host node: that node creates and claims the room.
    expect(spawn?.node).toBe(host.node);
    const code = spawn?.key.slice("room/".length);
    const tokens = ofType(effects, "push").map((p) => p.frame.token);
    expect(spawn?.init).toEqual({
      code,
      lobby: "queue/chess",
      mode: "chess",
      host: "alice",
      seats: [
        { seat: 1, team: 0, player: "alice" },
        { seat: 2, team: 1, player: "bob" },
      ],
      // The room checks each player's token when it arrives (joinRoom { code, token }).
      tokens: { alice: tokens[0], bob: tokens[1] },
    });
    const ready = ofType(effects, "push").map((p) => [p.to, p.frame]);
    expect(ready).toEqual([
      [["alice"], expect.objectContaining({ type: "matchReady", matchId: M1, url: host.url, room: code })],
      [["bob"], expect.objectContaining({ type: "matchReady", matchId: M1, url: host.url, room: code })],
    ]);
    expect(tokens[0]).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(tokens[0]).not.toBe(tokens[1]);
    expect(effects).toContainEqual({ type: "cancelTimer", name: `match:${M1}` });
    expect(q.state.entries).toEqual([]);
    // The match stays as the players' active room.
    expect(q.state.matches.map((m) => [m.id, m.room])).toEqual([[M1, code]]);
  });

  /** Alice and Bob accepted; their room runs. */
  function playing() {
    const q = matched();
    q.send({ type: "accept", player: "alice", matchId: M1 });
    const effects = q.send({ type: "accept", player: "bob", matchId: M1 });
    const room = ofType(effects, "spawn")[0]?.key.slice("room/".length) ?? "";
    return Object.assign(q, { room, started: effects });
  }

  it("while the match's room runs its players cannot queue again; its roomEnded lets them", () => {
    const q = playing();
    const before = q.state;
    expect(q.send(find("bob", 100))).toEqual([
      { type: "reject", code: "ALREADY_PLAYING", message: `bob is playing in room ${q.room}` },
    ]);
    expect(q.state).toBe(before);
    q.send({ type: "roomEnded", room: q.room });
    expect(q.state.matches).toEqual([]);
    expect(q.send(find("bob", 100))[0]).toEqual({ type: "reply", value: { entry: "e3" } });
  });

  it("a room that could not be created opens again under a new code, with new tokens", () => {
    const q = playing();
    const effects = q.send({ type: "spawnFailed", key: `room/${q.room}` });
    const [spawn] = ofType(effects, "spawn");
    const again = spawn?.key.slice("room/".length);
    expect(again).toMatch(/^[A-Z]{6}$/);
    expect(again).not.toBe(q.room);
    expect(ofType(effects, "push").map((p) => [p.to, p.frame.room])).toEqual([
      [["alice"], again],
      [["bob"], again],
    ]);
    const tokens = (e: typeof effects) => ofType(e, "push").map((p) => p.frame.token);
    expect(tokens(effects)).not.toEqual(tokens(q.started));
    expect(q.state.matches.map((m) => m.room)).toEqual([again]);
    // A stray failure of another key changes nothing.
    const before = q.state;
    expect(q.send({ type: "spawnFailed", key: "room/NOPE" })).toEqual([]);
    expect(q.state).toBe(before);
  });

  it("no node can take the room: the match waits and tries again until one can", () => {
    const q = chessQueue({});
    q.send(find("alice", 100));
    q.send(find("bob", 100));
    q.step();
    q.send({ type: "accept", player: "alice", matchId: M1 });
    const effects = q.send({ type: "accept", player: "bob", matchId: M1 });
    expect(ofType(effects, "spawn")).toEqual([]);
    expect(ofType(effects, "timer")).toEqual([
      { type: "timer", name: `match:${M1}`, at: q.ctx.now + 1000, kind: "game" },
    ]);
    // Everyone accepted: a decline now is too late.
    expect(q.send({ type: "decline", player: "bob", matchId: M1 })[0]).toMatchObject({ code: "INVALID" });
    q.ctx.node = { ...q.ctx.node, roomHost: host };
    expect(ofType(q.fire(`match:${M1}`, q.ctx.now + 1000), "spawn")).toHaveLength(1);
    expect(q.state.matches.map((m) => m.room)).toEqual([expect.stringMatching(/^[A-Z]{6}$/)]);
  });

  it("a decline cancels the match: the decliner leaves, the others go back to the front of the queue", () => {
    const q = matched();
    q.send({ type: "accept", player: "alice", matchId: M1 });
    const effects = q.send({ type: "decline", player: "bob", matchId: M1 });
    const cancelled = (requeued: boolean) => ({
      type: "matchCancelled",
      queue: "queue/chess",
      matchId: M1,
      reason: "declined",
      requeued,
    });
    expect(ofType(effects, "push").map((p) => [p.to, p.frame])).toEqual([
      [["alice"], cancelled(true)],
      [["bob"], cancelled(false)],
    ]);
    expect(stages(q)).toEqual([["alice", "waiting", true]]);
    expect(q.state.matches).toEqual([]);
    // At the front: alice is searched before an older, higher-step entry and takes carol first.
    q.send(find("carol", 100));
    const step = q.step();
    expect(pushed(step)).toEqual([["matchFound", ["alice", "carol"]]]);
  });

  it("the deadline: whoever has not accepted leaves, the ones who did go back to the front", () => {
    const q = matched();
    q.send({ type: "accept", player: "bob", matchId: M1 });
    const effects = q.fire(`match:${M1}`, q.acceptBy);
    expect(ofType(effects, "push").map((p) => [p.to, p.frame.requeued])).toEqual([
      [["alice"], false],
      [["bob"], true],
    ]);
    expect(ofType(effects, "push")[0]?.frame).toMatchObject({ reason: "acceptTimeout" });
    expect(stages(q)).toEqual([["bob", "waiting", true]]);
    expect(q.state.tickAt).not.toBeNull();
  });

  it("a fire before the deadline (stale) changes nothing", () => {
    const q = matched();
    const before = q.state;
    expect(q.fire(`match:${M1}`, q.acceptBy - 1)).toEqual([]);
    expect(q.state).toBe(before);
  });

  it("a cancel while being matched is a decline", () => {
    const q = matched();
    const effects = q.send({ type: "cancel", player: "alice" });
    expect(pushed(effects)).toEqual([
      ["matchCancelled", ["alice"]],
      ["matchCancelled", ["bob"]],
    ]);
    expect(effects).toContainEqual({ type: "reply" });
    expect(stages(q)).toEqual([["bob", "waiting", true]]);
  });

  it("answers to an unknown match or from a stranger are refused and change nothing", () => {
    const q = matched();
    const before = q.state;
    expect(q.send({ type: "accept", player: "alice", matchId: "queue/chess#9" })).toEqual([
      { type: "reject", code: "NOT_FOUND", message: "no match queue/chess#9 is waiting" },
    ]);
    expect(q.send({ type: "decline", player: "mallory", matchId: M1 })[0]).toMatchObject({
      type: "reject",
      code: "NOT_IN_LOBBY",
    });
    expect(q.state).toBe(before);
  });

  it("a player waiting for its match cannot queue again", () => {
    const q = matched();
    expect(q.send(find("alice", 100))[0]).toMatchObject({ type: "reject", code: "INVALID" });
  });

  it("createLobby is refused and a find-or-create never creates a lobby: it fails with JOIN_FAIL", () => {
    const q = chessQueue();
    const before = q.state;
    expect(q.send({ type: "createLobby", player: { id: "a", name: "A" }, rating: 1 })[0]).toMatchObject({
      type: "reject",
      code: "INVALID",
    });
    expect(q.state).toBe(before);
    q.send(find("alice", 100, { maxSteps: 1 }, "findOrCreateLobby"));
    const effects = q.step();
    expect(ofType(effects, "spawn")).toEqual([]);
    expect(ofType(effects, "push")[0]?.frame).toMatchObject({ code: "JOIN_FAIL", message: joinFailMessage });
  });

  it("a party is matched into one team with the players that fill the others", () => {
    const q = queue({ ...duel, queueAccept: { timeoutSecs: 5 } }, {}, { roomHost: host });
    q.send(find("a1", 100, { party: [{ id: "a2", name: "A2" }] }));
    q.send(find("b1", 100));
    q.step();
    expect(q.state.matches).toEqual([]);
    q.send(find("b2", 100));
    q.step();
    expect(q.state.matches[0]?.seats).toEqual([
      { player: "a1", team: "red" },
      { player: "a2", team: "red" },
      { player: "b1", team: "blue" },
      { player: "b2", team: "blue" },
    ]);
  });

  it("a version 1 snapshot (before matches) reads as a queue with no matches", () => {
    const v1 = { lobbyType: "chess", nextEntry: 1, nextLobby: 1, tickAt: null, entries: [], lobbies: [] };
    expect(upgradeQueueState(v1, 1)).toMatchObject({ nextMatch: 1, matches: [] });
  });
});
