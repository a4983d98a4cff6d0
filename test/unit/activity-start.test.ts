import { describe, expect, it } from "vitest";
import {
  activityLobbyIdle,
  activityTransferFrameSchema,
  type ActivityLobbyState,
  type Stage,
} from "../../actors/activity/index.ts";
import { roomInitSchema } from "../../actors/common/index.ts";
import type { Effect } from "../../actors/runtime/types.ts";
import { activityLobbyOf, ev, expectRefused, framesTo, KEY, ofType, T0 } from "./support/activity-driver.ts";

/** SPEC §2: at 0 every player goes to one new room, each with its own token; 2 or 3 are made a team. */

const stageOf = (state: ActivityLobbyState): Stage => state.stage;
/** The player registry hears that the player is out of this lobby. */
const left = (player: string): Effect => ({
  type: "tell",
  to: `player/${player}`,
  message: { type: "left", lobby: KEY },
});

function started(players: readonly string[], settings = {}) {
  const d = activityLobbyOf(players, settings);
  if (d.state.stage.phase !== "waiting" || !d.state.stage.countdown.running) throw new Error("not counting");
  d.ctx.now = d.state.stage.countdown.deadline;
  const effects = d.fire("countdown");
  const stage: Stage = stageOf(d.state);
  if (stage.phase !== "started") throw new Error("not started");
  const { room, transfers } = stage;
  return { d, effects, room, tokens: new Map(transfers.map((t) => [t.player, t.token])) };
}

describe("activity lobby start", () => {
  it("at 0 every player goes to ONE new room: the room is spawned first, then each player gets its transfer", () => {
    const { d, effects, room, tokens } = started(["alice", "bob"]);
    expect(room).toMatch(/^[A-Z]{6}$/);
    const transfer = (player: string) => ({
      type: "activityTransfer",
      activity: "race",
      map: "1203",
      room,
      token: tokens.get(player),
      team: ["alice", "bob"],
    });
    expect(effects).toEqual([
      {
        type: "spawn",
        key: `room/${room}`,
        init: {
          code: room,
          lobby: KEY,
          mode: "race",
          host: "alice",
          seats: [
            { seat: 1, team: 0, player: "alice" },
            { seat: 2, team: 0, player: "bob" },
          ],
          tokens: { alice: tokens.get("alice"), bob: tokens.get("bob") },
        },
        quietIfFailed: true,
      },
      { type: "push", to: ["alice"], frame: transfer("alice") },
      { type: "push", to: ["bob"], frame: transfer("bob") },
      { type: "timer", name: "transfer", at: T0 + 120_000, kind: "game" },
      { type: "tell", to: "activity/race", message: { type: "lobbyClosed", lobby: KEY } },
    ]);
    expect(activityLobbyIdle(d.state)).toBe(false);
  });

  it("the room's init is the one private lobbies give their rooms", () => {
    const { effects } = started(["alice", "bob", "carol"]);
    const [spawn] = ofType(effects, "spawn");
    expect(roomInitSchema.safeParse(spawn!.init).success).toBe(true);
  });

  it("tokens are per player, drawn from the random source, and every transfer frame is valid", () => {
    const { effects, tokens } = started(["alice", "bob", "carol", "dave"]);
    expect(new Set(tokens.values()).size).toBe(4);
    for (const token of tokens.values()) expect(token).toMatch(/^[A-Za-z0-9]{24}$/);
    for (const p of ofType(effects, "push"))
      expect(activityTransferFrameSchema.safeParse(p.frame).success).toBe(true);
  });

  it.each([
    [
      ["alice", "bob"],
      ["alice", "bob"],
      [0, 0],
    ],
    [
      ["alice", "bob", "carol"],
      ["alice", "bob", "carol"],
      [0, 0, 0],
    ],
    [["alice", "bob", "carol", "dave"], null, [0, 1, 2, 3]],
  ])("%j are made a team: %j (seat teams %j)", (players, team, seatTeams) => {
    const { effects } = started(players);
    for (const p of players) expect(framesTo(effects, p)).toMatchObject([{ type: "activityTransfer", team }]);
    const [spawn] = ofType(effects, "spawn");
    expect((spawn!.init as { seats: { team: number }[] }).seats.map((s) => s.team)).toEqual(seatTeams);
  });

  it("a solo player goes alone, not made a team", () => {
    const { effects } = started(["alice"], { soloPlay: true });
    expect(framesTo(effects, "alice")).toMatchObject([{ type: "activityTransfer", team: null }]);
    const [spawn] = ofType(effects, "spawn");
    expect(spawn!.init).toMatchObject({ host: "alice", seats: [{ seat: 1, team: 0, player: "alice" }] });
  });

  it("a node that cannot open a room holds the countdown at 0 and tries again a second later", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.ctx.now = T0 + 60_000;
    d.ctx.node = { canOpenRoom: false, draining: false };
    const before = d.state;
    expect(d.fire("countdown")).toEqual([
      { type: "timer", name: "countdown", at: T0 + 61_000, kind: "game" },
    ]);
    expect(d.state).toBe(before);
    // A player joining now hears 0 seconds left.
    expect(framesTo(d.join("carol"), "carol").at(-1)).toEqual(ev.waitReady(0));
    d.ctx.now = T0 + 61_000;
    d.ctx.node = { canOpenRoom: true, draining: false };
    expect(ofType(d.fire("countdown"), "spawn")).toHaveLength(1);
  });

  it("a draining node holds the start too", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.ctx.now = T0 + 60_000;
    d.ctx.node = { canOpenRoom: true, draining: true };
    expect(d.fire("countdown")).toEqual([
      { type: "timer", name: "countdown", at: T0 + 61_000, kind: "game" },
    ]);
  });

  it("a countdown timer that is not due (or not running) changes nothing but keeps the deadline", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    const before = d.state;
    expect(d.fire("countdown")).toEqual([
      { type: "timer", name: "countdown", at: T0 + 60_000, kind: "game" },
    ]);
    expect(d.state).toBe(before);
    const held = activityLobbyOf(["alice"]);
    expect(held.fire("countdown")).toEqual([]);
  });

  it("a started lobby takes nobody new (FULL) and resends a player's transfer to it", () => {
    const { d, effects } = started(["alice", "bob"]);
    expectRefused(d, { type: "join", player: { id: "carol", name: "Carol" } }, "FULL");
    const before = d.state;
    expect(d.join("bob")).toEqual([
      ...ofType(effects, "push").filter((p) => p.to[0] === "bob"),
      { type: "reply", value: { lobby: KEY } },
    ]);
    expect(d.state).toBe(before);
    // Ready states no longer matter.
    expect(d.ready("bob")).toEqual([{ type: "reply" }]);
  });

  it("players leave silently as they load into the room; the last one out stops the lobby (closed once)", () => {
    const { d } = started(["alice", "bob"]);
    expect(d.leave("alice")).toEqual([{ type: "reply" }, left("alice")]);
    expect(d.leave("bob")).toEqual([{ type: "reply" }, left("bob"), { type: "stop" }]);
  });

  it("the transfer window ends the lobby; so does the room's end", () => {
    const window = started(["alice", "bob"]);
    window.d.ctx.advance(60_000);
    // Players who never loaded into the room are out of the lobby: the registry forgets it.
    expect(window.d.fire("transfer")).toEqual([left("alice"), left("bob"), { type: "stop" }]);
    const ended = started(["alice", "bob"]);
    expect(ended.d.send({ type: "roomEnded", room: "ZZZZZZ" })).toEqual([{ type: "reply" }]);
    expect(ended.d.send({ type: "roomEnded", room: ended.room })).toEqual([
      { type: "reply" },
      left("alice"),
      left("bob"),
      { type: "stop" },
    ]);
  });

  it("a player away on its grace at 0 is not seated: it leaves (everyone hears it), and the start follows with the others", () => {
    const d = activityLobbyOf(["alice", "bob", "carol"]);
    d.send({ type: "connection", player: "bob", connected: false });
    d.ctx.now = T0 + 60_000;
    // First bob leaves, in a step of its own; the countdown is armed again at its deadline, already due.
    expect(d.fire("countdown")).toEqual([
      { type: "cancelTimer", name: "grace:bob" },
      { type: "push", to: ["alice", "bob", "carol"], frame: ev.removed("bob") },
      { type: "timer", name: "countdown", at: T0 + 60_000, kind: "game" },
      {
        type: "tell",
        to: "activity/race",
        message: { type: "lobbyStatus", lobby: KEY, players: 2, open: true, version: 4 },
      },
      left("bob"),
    ]);
    expect(d.state.players.map((p) => p.id)).toEqual(["alice", "carol"]);
    // Then the start: two seats, made a team of two, no transfer for bob.
    const effects = d.fire("countdown");
    const [spawn] = ofType(effects, "spawn");
    expect(spawn!.init).toMatchObject({
      host: "alice",
      seats: [
        { seat: 1, team: 0, player: "alice" },
        { seat: 2, team: 0, player: "carol" },
      ],
    });
    expect(Object.keys((spawn!.init as { tokens: object }).tokens)).toEqual(["alice", "carol"]);
    for (const p of ["alice", "carol"])
      expect(framesTo(effects, p)).toMatchObject([{ type: "activityTransfer", team: ["alice", "carol"] }]);
    expect(framesTo(effects, "bob")).toEqual([]);
    // bob coming back finds no place and no transfer; a join of his is refused, the lobby started.
    expect(d.send({ type: "connection", player: "bob", connected: true })).toEqual([{ type: "reply" }]);
    expectRefused(d, { type: "join", player: { id: "bob", name: "BOB" } }, "FULL");
  });

  it("too few left once the away players leave: the countdown pauses at 0, and the next player to bring the minimum starts it at once", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.send({ type: "connection", player: "bob", connected: false });
    d.ctx.now = T0 + 60_000;
    const effects = d.fire("countdown");
    expect(ofType(effects, "spawn")).toEqual([]);
    expect(framesTo(effects, "alice")).toEqual([ev.removed("bob"), ev.paused(0)]);
    expect(stageOf(d.state)).toEqual({ phase: "waiting", countdown: { running: false, remainingMs: 0 } });
    d.wait(30);
    const joined = d.join("carol");
    expect(framesTo(joined, "carol")).toEqual([ev.added("carol"), ev.added("alice"), ev.waitReady(0)]);
    expect(joined).toContainEqual({ type: "timer", name: "countdown", at: d.ctx.now, kind: "game" });
    const [spawn] = ofType(d.fire("countdown"), "spawn");
    expect(spawn!.init).toMatchObject({ seats: [{ player: "alice" }, { player: "carol" }] });
  });

  it("everyone away at 0: they all leave, and the lobby closes without a room", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.send({ type: "connection", player: "alice", connected: false });
    d.send({ type: "connection", player: "bob", connected: false });
    d.ctx.now = T0 + 60_000;
    const effects = d.fire("countdown");
    expect(ofType(effects, "spawn")).toEqual([]);
    expect(ofType(effects, "tell")).toEqual([
      { type: "tell", to: "activity/race", message: { type: "lobbyClosed", lobby: KEY } },
      left("alice"),
      left("bob"),
    ]);
    expect(effects.at(-1)).toEqual({ type: "stop" });
  });

  it("a node that cannot open a room yet keeps its away players listed: they may still come back", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.send({ type: "connection", player: "bob", connected: false });
    d.ctx.now = T0 + 60_000;
    d.ctx.node = { canOpenRoom: false, draining: false };
    expect(d.fire("countdown")).toEqual([
      { type: "timer", name: "countdown", at: T0 + 61_000, kind: "game" },
    ]);
    d.send({ type: "connection", player: "bob", connected: true });
    d.ctx.now = T0 + 61_000;
    d.ctx.node = { canOpenRoom: true, draining: false };
    const [spawn] = ofType(d.fire("countdown"), "spawn");
    expect(spawn!.init).toMatchObject({ seats: [{ player: "alice" }, { player: "bob" }] });
  });
});

describe("a started lobby and the fleet", () => {
  it("answers `status` with whether it started, and changes nothing", () => {
    const waiting = activityLobbyOf(["alice", "bob"]);
    const before = waiting.state;
    expect(waiting.send({ type: "status" })).toEqual([{ type: "reply", value: { started: false } }]);
    expect(waiting.state).toBe(before);
    const { d } = started(["alice", "bob"]);
    const startedState = d.state;
    expect(d.send({ type: "status" })).toEqual([{ type: "reply", value: { started: true } }]);
    expect(d.state).toBe(startedState);
  });

  it("is pinned to its node (a drain leaves it with its room) until it stops; a waiting lobby is not", () => {
    const waiting = activityLobbyOf(["alice", "bob"]);
    expect(waiting.kind.pinned?.(waiting.state)).toBe(false);
    const { d } = started(["alice", "bob"]);
    expect(d.kind.pinned?.(d.state)).toBe(true);
  });

  it("a room that could not be created puts the lobby back to waiting, and it starts again with a new room", () => {
    const { d, room } = started(["alice", "bob"]);
    // Another room's failure is not this lobby's.
    expect(d.send({ type: "spawnFailed", key: "room/ZZZZZZ" })).toEqual([]);
    expect(stageOf(d.state).phase).toBe("started");
    const effects = d.send({ type: "spawnFailed", key: `room/${room}` });
    expect(stageOf(d.state)).toEqual({
      phase: "waiting",
      countdown: { running: true, deadline: d.ctx.now + 1000 },
    });
    expect(effects).toContainEqual({ type: "cancelTimer", name: "transfer" });
    expect(effects).toContainEqual({ type: "timer", name: "countdown", at: d.ctx.now + 1000, kind: "game" });
    for (const player of ["alice", "bob"]) expect(framesTo(effects, player)).toEqual([ev.waitReady(1)]);
    // The directory was told it closed at the start; it hears nothing new.
    expect(ofType(effects, "tell")).toEqual([]);
    d.ctx.advance(1000);
    d.fire("countdown");
    const again = stageOf(d.state);
    if (again.phase !== "started") throw new Error("not started again");
    expect(again.room).not.toBe(room);
  });

  it("a room that could not be created, after a player left below the minimum, leaves the countdown paused", () => {
    const { d, room } = started(["alice", "bob"]);
    d.leave("alice");
    d.send({ type: "spawnFailed", key: `room/${room}` });
    expect(stageOf(d.state)).toEqual({ phase: "waiting", countdown: { running: false, remainingMs: 1000 } });
    expect(d.state.players.map((p) => p.id)).toEqual(["bob"]);
  });
});
