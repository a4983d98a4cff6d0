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

  it("every accept: the room is asked for on the load view's node, and nothing is announced yet", () => {
    const q = matched();
    expect(q.send({ type: "accept", player: "alice", matchId: M1 })).toEqual([{ type: "reply" }]);
    const effects = q.send({ type: "accept", player: "bob", matchId: M1 });
    const [spawn] = ofType(effects, "spawn");
    expect(spawn?.key).toMatch(/^room\/[A-Z]{6}$/);
    // Placed on the host node: that node creates and claims the room; the queue waits for it to be stored.
    expect(spawn).toMatchObject({ node: host.node, confirm: true });
    const code = spawn?.key.slice("room/".length);
    const match = q.state.matches[0]!;
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
      tokens: match.tokens,
    });
    expect(match.tokens.alice).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(match.tokens.alice).not.toBe(match.tokens.bob);
    // The pending room is in the snapshot; no player hears of it, no registry records it.
    expect(match).toMatchObject({ room: code, node: host.node, url: host.url, announced: false });
    expect(ofType(effects, "push")).toEqual([]);
    expect(ofType(effects, "tell")).toEqual([]);
    expect(ofType(effects, "timer")).toEqual([
      { type: "timer", name: `match:${M1}`, at: q.ctx.now + 15_000, kind: "game" },
    ]);
  });

  it("the room confirmed stored: each player gets matchReady with its own token, once", () => {
    const q = playing();
    const match = q.state.matches[0]!;
    const tokens = ofType(q.ready, "push").map((p) => p.frame.token);
    expect(ofType(q.ready, "push").map((p) => [p.to, p.frame])).toEqual([
      [["alice"], expect.objectContaining({ type: "matchReady", matchId: M1, url: host.url, room: q.room })],
      [["bob"], expect.objectContaining({ type: "matchReady", matchId: M1, url: host.url, room: q.room })],
    ]);
    expect(tokens).toEqual([match.tokens.alice, match.tokens.bob]);
    expect(ofType(q.ready, "tell").map((t) => t.to)).toEqual(["player/alice", "player/bob"]);
    expect(q.ready).toContainEqual({ type: "cancelTimer", name: `match:${M1}` });
    expect(q.state.entries).toEqual([]);
    // The match stays as the players' active room.
    expect(q.state.matches.map((m) => [m.id, m.room, m.announced])).toEqual([[M1, q.room, true]]);
    // A second confirmation (an ask again crossing the first) announces nothing twice.
    const before = q.state;
    expect(q.send({ type: "spawned", key: `room/${q.room}` })).toEqual([]);
    expect(q.state).toBe(before);
  });

  /** Alice and Bob accepted; their room was asked for (`asked`), not yet confirmed. */
  function accepted() {
    const q = matched();
    q.send({ type: "accept", player: "alice", matchId: M1 });
    const asked = q.send({ type: "accept", player: "bob", matchId: M1 });
    const room = ofType(asked, "spawn")[0]?.key.slice("room/".length) ?? "";
    return Object.assign(q, { room, asked });
  }

  /** Alice and Bob accepted and their room was confirmed stored (`ready`): it runs. */
  function playing() {
    const q = accepted();
    const ready = q.send({ type: "spawned", key: `room/${q.room}` });
    return Object.assign(q, { ready });
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

  it("a room that could not be created is asked for again under a new code, with new tokens, still silently", () => {
    const q = accepted();
    const first = q.state.matches[0]!.tokens;
    const effects = q.send({ type: "spawnFailed", key: `room/${q.room}` });
    const [spawn] = ofType(effects, "spawn");
    const again = spawn?.key.slice("room/".length);
    expect(again).toMatch(/^[A-Z]{6}$/);
    expect(again).not.toBe(q.room);
    expect(ofType(effects, "push")).toEqual([]);
    expect(q.state.matches[0]!.tokens).not.toEqual(first);
    expect(q.state.matches.map((m) => [m.room, m.announced])).toEqual([[again, false]]);
    // A stray failure of another key, or a late one of the first room, changes nothing.
    const before = q.state;
    expect(q.send({ type: "spawnFailed", key: "room/NOPE" })).toEqual([]);
    expect(q.send({ type: "spawnFailed", key: `room/${q.room}` })).toEqual([]);
    expect(q.send({ type: "spawned", key: `room/${q.room}` })).toEqual([]);
    expect(q.state).toBe(before);
    // Its confirmation announces the new room.
    const ready = q.send({ type: "spawned", key: `room/${again}` });
    expect(ofType(ready, "push").map((p) => p.frame.room)).toEqual([again, again]);
  });

  it("a confirmation not in time (lost with a crashed node) asks again for the same room, where a stored one counts", () => {
    const q = accepted();
    const [first] = ofType(q.asked, "spawn");
    const effects = q.fire(`match:${M1}`, q.ctx.now + 15_000);
    expect(ofType(effects, "spawn")).toEqual([{ ...first, reask: true }]);
    expect(ofType(effects, "push")).toEqual([]);
    expect(q.state.matches.map((m) => [m.room, m.announced])).toEqual([[q.room, false]]);
    expect(ofType(q.send({ type: "spawned", key: `room/${q.room}` }), "push")).toHaveLength(2);
    // Announced: a later fire is stale.
    expect(q.fire(`match:${M1}`, q.ctx.now + 15_000)).toEqual([]);
  });

  it("no node can take a room: nobody is matched, and the players are matched once a room frees", () => {
    const q = chessQueue({});
    q.send(find("alice", 100));
    q.send(find("bob", 100));
    expect(pushed(q.step())).toEqual([]);
    expect(stages(q)).toEqual([
      ["alice", "waiting", false],
      ["bob", "waiting", false],
    ]);
    // Still searched at the first step's range: waiting for a room costs no step.
    expect(q.state.entries.map((e) => e.step)).toEqual([0, 0]);
    expect(q.state.tickAt).not.toBeNull();
    q.ctx.node = { ...q.ctx.node, roomHost: host };
    expect(pushed(q.step())).toEqual([["matchFound", ["alice", "bob"]]]);
  });

  it("the rooms filled up during the accepts: the match waits and tries again until a node can take it", () => {
    const q = matched();
    q.ctx.node = { ...q.ctx.node, roomHost: undefined };
    q.send({ type: "accept", player: "alice", matchId: M1 });
    const effects = q.send({ type: "accept", player: "bob", matchId: M1 });
    expect(ofType(effects, "spawn")).toEqual([]);
    expect(ofType(effects, "push")).toEqual([]);
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
