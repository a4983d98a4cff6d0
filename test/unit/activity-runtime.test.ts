import { describe, expect, it } from "vitest";
import {
  activityDirectoryKind,
  activityLobbyKind,
  type ActivityLobbyState,
} from "../../actors/activity/index.ts";
import {
  ActorSystem,
  createHarness,
  ManualScheduler,
  seededRandom,
  type Harness,
  type StampedFrame,
} from "../../actors/runtime/index.ts";
import type { PushFrame } from "../../actors/runtime/types.ts";
import { playerKind } from "../../actors/player/index.ts";
import { ev, race } from "./support/activity-driver.ts";
import { roomRecorder } from "./support/room-recorder.ts";

/** Directories, lobbies and the room they start, on the real runtime (fake clock, in-memory store). */

const raceB = { ...race, id: "race-b" }; // the same map (1203) as `race`
const survival = {
  ...race,
  id: "survival",
  map: "1101",
  minTeams: 1,
  maxTeams: 1,
  minTeamSize: 2,
  maxTeamSize: 4,
};
const activities = { activities: [race, raceB, survival] };

function cluster() {
  const rooms: { key: string; init: unknown }[] = [];
  const h = createHarness({
    kinds: [
      { kind: activityDirectoryKind(activities) as never, createOnDemand: true },
      { kind: activityLobbyKind() as never },
      { kind: roomRecorder(rooms) as never },
      // The player registry, which every lobby tells who joined and left.
      { kind: playerKind() as never, createOnDemand: true },
    ],
    seed: 5,
  });
  return Object.assign(h, { rooms });
}

/** What the gateway will do: ask the directory, join the lobby it names, and ask again on FULL. */
async function joinActivity(
  h: Harness,
  activity: string,
  player: string,
  previous?: string,
): Promise<string> {
  let full: string | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const ask = {
      type: "join",
      player: { id: player, name: player.toUpperCase() },
      ...(previous === undefined ? {} : { previous }),
      ...(full === undefined ? {} : { full }),
    };
    const chosen = await h.system.ask(`activity/${activity}`, ask);
    if (!chosen.ok) throw new Error(chosen.message);
    const { lobby } = chosen.value as { lobby: string };
    const joined = await h.system.ask(lobby, {
      type: "join",
      player: { id: player, name: player.toUpperCase() },
    });
    await h.settle();
    if (joined.ok) return lobby;
    if (joined.code !== "FULL") throw new Error(joined.message);
    full = lobby;
  }
  throw new Error("no lobby took the player");
}

/** The frames without the runtime's stamp, for exact comparisons. */
function plain(frames: readonly StampedFrame[]): PushFrame[] {
  return frames.map(({ key: _key, epoch: _epoch, seq: _seq, ...frame }) => frame);
}

describe("activity lobbies on the runtime", () => {
  it("five racers: four fill the oldest lobby, the fifth opens a second; at 0 the four go to one room", async () => {
    const h = cluster();
    const t0 = h.clock.now();
    const lobbies = [];
    for (const p of ["alice", "bob", "carol", "dave", "erin"]) lobbies.push(await joinActivity(h, "race", p));
    expect(lobbies).toEqual([...Array(4).fill("activityLobby/race/1"), "activityLobby/race/2"]);
    expect(plain(h.framesOf("alice"))).toEqual([
      ev.added("alice"),
      ev.added("bob"),
      ev.waitReady(60),
      ev.added("carol"),
      ev.added("dave"),
    ]);
    expect(h.framesOf("alice").every((f) => f.key === "activityLobby/race/1")).toBe(true);
    expect(plain(h.framesOf("erin"))).toEqual([ev.added("erin")]);

    await h.clock.advance(59_999);
    expect(h.rooms).toEqual([]);
    await h.clock.advance(1);
    expect(h.clock.now()).toBe(t0 + 60_000);
    expect(h.rooms).toHaveLength(1);
    const [room] = h.rooms;
    const code = room!.key.slice("room/".length);
    expect(room!.init).toEqual({
      code,
      lobby: "activityLobby/race/1",
      mode: "race",
      host: "alice",
      seats: ["alice", "bob", "carol", "dave"].map((player, i) => ({ seat: i + 1, team: i, player })),
      tokens: Object.fromEntries(
        ["alice", "bob", "carol", "dave"].map((p) => [p, h.lastOf(p, "activityTransfer")?.token]),
      ),
    });
    for (const p of ["alice", "bob", "carol", "dave"]) {
      expect(h.lastOf(p, "activityTransfer")).toMatchObject({
        room: code,
        activity: "race",
        map: "1203",
        team: null,
      });
    }
    expect(h.lastOf("erin", "activityTransfer")).toBeUndefined();
    // The directory forgot the started lobby; the second one still waits.
    expect(h.system.peek("activity/race")).toMatchObject({
      lobbies: [{ lobby: "activityLobby/race/2", players: 1, open: true }],
    });
    // The sixth racer joins the waiting lobby, not a new one.
    expect(await joinActivity(h, "race", "fred")).toBe("activityLobby/race/2");
    expect(h.reported).toEqual([]);
  });

  it("a racer away on its grace at 0 is left out: the others hear it go, and they alone get the room at the deadline", async () => {
    const h = cluster();
    const t0 = h.clock.now();
    for (const p of ["alice", "bob", "carol"]) await joinActivity(h, "race", p);
    // carol drops 5 s before 0: her grace (10 s) is still running when the countdown ends.
    await h.clock.advance(55_000);
    await h.system.ask("activityLobby/race/1", { type: "connection", player: "carol", connected: false });
    const before = h.framesOf("alice").length;
    await h.clock.advance(5_000);
    expect(h.clock.now()).toBe(t0 + 60_000);
    expect(h.rooms).toHaveLength(1);
    expect(h.rooms[0]!.init).toMatchObject({
      seats: [
        { seat: 1, team: 0, player: "alice" },
        { seat: 2, team: 0, player: "bob" },
      ],
    });
    expect(plain(h.framesOf("alice").slice(before, before + 1))).toEqual([ev.removed("carol")]);
    expect(h.lastOf("alice", "activityTransfer")).toMatchObject({ team: ["alice", "bob"] });
    expect(h.lastOf("carol", "activityTransfer")).toBeUndefined();
  });

  it("the overflow race is safe: a lobby that filled meanwhile refuses FULL and the next ask goes elsewhere", async () => {
    const h = cluster();
    for (const p of ["a", "b", "c"]) await joinActivity(h, "race", p);
    // The directory sends erin to lobby 1, but dave (sent there a moment ago) takes the last place first.
    const chosen = await h.system.ask("activity/race", {
      type: "join",
      player: { id: "erin", name: "ERIN" },
    });
    expect(chosen).toEqual({ ok: true, value: { lobby: "activityLobby/race/1" } });
    await h.system.ask("activityLobby/race/1", { type: "join", player: { id: "dave", name: "DAVE" } });
    expect(
      await h.system.ask("activityLobby/race/1", { type: "join", player: { id: "erin", name: "ERIN" } }),
    ).toEqual({ ok: false, code: "FULL", message: "activityLobby/race/1 has 4 players" });
    expect(
      await h.system.ask("activity/race", {
        type: "join",
        player: { id: "erin", name: "ERIN" },
        full: "activityLobby/race/1",
      }),
    ).toEqual({ ok: true, value: { lobby: "activityLobby/race/2" } });
    await h.settle();
    expect((h.system.peek("activityLobby/race/1") as ActivityLobbyState).players.map((p) => p.id)).toEqual([
      "a",
      "b",
      "c",
      "dave",
    ]);
  });

  it("joining another activity leaves the first lobby: PLAYER_REMOVED there, and its countdown pauses", async () => {
    const h = cluster();
    await joinActivity(h, "race", "alice");
    await joinActivity(h, "race", "bob");
    await h.clock.advance(25_000);
    const before = h.framesOf("bob").length;
    expect(await joinActivity(h, "survival", "alice", "activityLobby/race/1")).toBe(
      "activityLobby/survival/1",
    );
    expect(plain(h.framesOf("bob").slice(before))).toEqual([ev.removed("alice"), ev.paused(35)]);
    expect(
      h
        .framesOf("alice")
        .filter((f) => f.key === "activityLobby/race/1")
        .at(-1),
    ).toMatchObject(ev.removed("alice"));
    expect(h.framesOf("alice").at(-1)).toMatchObject({
      key: "activityLobby/survival/1",
      ...ev.added("alice"),
    });
    expect((h.system.peek("activityLobby/race/1") as ActivityLobbyState).players.map((p) => p.id)).toEqual([
      "bob",
    ]);
  });

  it("two activities with the same map are kept apart", async () => {
    const h = cluster();
    expect(await joinActivity(h, "race", "alice")).toBe("activityLobby/race/1");
    expect(await joinActivity(h, "race-b", "bob")).toBe("activityLobby/race-b/1");
    // Each lobby has one racer, below the minimum of 2: nobody meets, no countdown.
    expect(plain(h.framesOf("alice"))).toEqual([ev.added("alice")]);
    expect(plain(h.framesOf("bob"))).toEqual([ev.added("bob")]);
  });

  it("an unconfigured activity is NOT_FOUND and leaves no snapshot", async () => {
    const h = cluster();
    const answer = await h.system.ask("activity/chess", { type: "join", player: { id: "a", name: "A" } });
    expect(answer).toMatchObject({ ok: false, code: "NOT_FOUND" });
    expect(h.store.keys()).toEqual([]);
  });
});

/** A second node over the same store, as after a kill -9: it restores the lobby and its timers. */
function restoreOn(h: Harness, start: number) {
  const clock = new ManualScheduler(start);
  const delivered: { player: string; frame: StampedFrame }[] = [];
  const system = new ActorSystem({
    store: h.store,
    outbox: { push: (players, frame) => players.forEach((player) => delivered.push({ player, frame })) },
    scheduler: clock,
    random: seededRandom(9),
    node: { canOpenRoom: () => true, draining: () => false, mayAct: () => true },
  });
  system.register(activityDirectoryKind(activities), { createOnDemand: true });
  system.register(activityLobbyKind());
  system.register(roomRecorder([]));
  const framesOf = (player: string) =>
    plain(delivered.filter((d) => d.player === player).map((d) => d.frame));
  return { system, clock, framesOf };
}

describe("activity lobby across a restore", () => {
  it("the countdown deadline is in the snapshot and holds: the seconds the node was dead still count", async () => {
    const h = cluster();
    const t0 = h.clock.now();
    await joinActivity(h, "race", "alice");
    await joinActivity(h, "race", "bob");
    expect(h.store.peek("activityLobby/race/1")?.timers).toEqual([
      { name: "countdown", kind: "game", at: t0 + 60_000 },
    ]);
    await h.clock.advance(20_000);
    h.system.close();

    // The new owner comes up 30 s after the crash: 10 s are left, not 40.
    const next = restoreOn(h, t0 + 50_000);
    next.system.tell("activityLobby/race/1", {
      type: "restored",
      reason: "failover",
      connected: ["alice", "bob"],
    });
    await next.clock.advance(0);
    expect(next.framesOf("alice")).toEqual([ev.added("alice"), ev.added("bob"), ev.waitReady(10)]);
    await next.clock.advance(9_999);
    expect(next.framesOf("alice").map((f) => f.type)).not.toContain("activityTransfer");
    await next.clock.advance(1);
    expect(next.framesOf("alice").at(-1)).toMatchObject({ type: "activityTransfer", activity: "race" });
    expect(next.framesOf("bob").at(-1)).toMatchObject({ type: "activityTransfer", activity: "race" });
    next.system.close();
  });

  it("a deadline that passed while the node was dead fires at once after the restore", async () => {
    const h = cluster();
    const t0 = h.clock.now();
    await joinActivity(h, "race", "alice");
    await joinActivity(h, "race", "bob");
    h.system.close();
    const next = restoreOn(h, t0 + 75_000);
    next.system.tell("activityLobby/race/1", {
      type: "restored",
      reason: "failover",
      connected: ["alice", "bob"],
    });
    await next.clock.advance(0);
    expect(next.framesOf("alice").at(-1)).toMatchObject({ type: "activityTransfer" });
    next.system.close();
  });

  it("a paused countdown keeps its remaining time in the snapshot, however long until it resumes", async () => {
    const h = cluster();
    const t0 = h.clock.now();
    await joinActivity(h, "race", "alice");
    await joinActivity(h, "race", "bob");
    await h.clock.advance(20_000);
    await h.system.ask("activityLobby/race/1", { type: "leave", player: "bob" });
    const snapshot = h.store.peek("activityLobby/race/1");
    expect(snapshot?.timers).toEqual([]);
    expect((snapshot?.state as ActivityLobbyState).stage).toEqual({
      phase: "waiting",
      countdown: { running: false, remainingMs: 40_000 },
    });
    h.system.close();
    const next = restoreOn(h, t0 + 600_000);
    expect(
      await next.system.ask("activityLobby/race/1", { type: "join", player: { id: "carol", name: "CAROL" } }),
    ).toEqual({
      ok: true,
      value: { lobby: "activityLobby/race/1" },
    });
    expect(next.framesOf("carol")).toEqual([ev.added("carol"), ev.added("alice"), ev.waitReady(40)]);
    next.system.close();
  });
});
