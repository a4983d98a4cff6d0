import { describe, expect, it } from "vitest";
import { activityFrameSchema } from "../../actors/activity/index.ts";
import type { Effect } from "../../actors/runtime/types.ts";
import {
  activityLobby,
  activityLobbyOf,
  ev,
  expectRefused,
  framesTo,
  KEY,
  T0,
} from "./support/activity-driver.ts";

/** The seed's MatchUpdate table, row by row: the exact frames, in order, per recipient. */

const DIR = "activity/race";
const status = (players: number, version: number, open = true): Effect => ({
  type: "tell",
  to: DIR,
  message: { type: "lobbyStatus", lobby: KEY, players, open, version },
});
/** The player registry's news: one lobby per player across the cluster (private or activity). */
const registry = (player: string, news: "joined" | "left"): Effect => ({
  type: "tell",
  to: `player/${player}`,
  message: { type: news, lobby: KEY },
});

describe("activity lobby events (the seed's MatchUpdate table)", () => {
  it("join an empty lobby: the joiner gets PLAYER_ADDED for itself; the directory hears the count", () => {
    const d = activityLobby();
    expect(d.join("alice")).toEqual([
      { type: "push", to: ["alice"], frame: ev.added("alice") },
      { type: "reply", value: { lobby: KEY } },
      status(1, 1),
      registry("alice", "joined"),
    ]);
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: false, remainingMs: 60_000 } });
  });

  it("join with waiting players: itself, then each in join order followed by PLAYER_READY only if ready; the others get PLAYER_ADDED", () => {
    // Minimum 4, so no countdown runs in this case.
    const d = activityLobbyOf(["alice", "bob", "carol"], { minTeams: 4 });
    d.ready("alice");
    d.ready("carol");
    const effects = d.join("dave");
    expect(effects).toEqual([
      { type: "push", to: ["dave"], frame: ev.added("dave") },
      { type: "push", to: ["dave"], frame: ev.added("alice") },
      { type: "push", to: ["dave"], frame: ev.ready("alice") },
      { type: "push", to: ["dave"], frame: ev.added("bob") },
      { type: "push", to: ["dave"], frame: ev.added("carol") },
      { type: "push", to: ["dave"], frame: ev.ready("carol") },
      { type: "push", to: ["alice", "bob", "carol"], frame: ev.added("dave") },
      // Four players: the minimum is there, so the countdown starts for everyone.
      { type: "timer", name: "countdown", at: T0 + 60_000, kind: "game" },
      { type: "push", to: ["alice", "bob", "carol", "dave"], frame: ev.waitReady(60) },
      { type: "reply", value: { lobby: KEY } },
      {
        type: "tell",
        to: DIR,
        message: { type: "lobbyStatus", lobby: KEY, players: 4, open: false, version: 4 },
      },
      registry("dave", "joined"),
    ]);
  });

  it("the joiner never hears PLAYER_NOT_READY for players who are not ready", () => {
    const d = activityLobbyOf(["alice", "bob"], { minTeams: 4 });
    const frames = framesTo(d.join("carol"), "carol");
    expect(frames).toEqual([ev.added("carol"), ev.added("alice"), ev.added("bob")]);
  });

  it("join that brings the minimum: the countdown starts, PHASE_WAIT_READY {waitTime} to everyone", () => {
    const d = activityLobbyOf(["alice"]);
    const effects = d.join("bob");
    expect(framesTo(effects, "bob")).toEqual([ev.added("bob"), ev.added("alice"), ev.waitReady(60)]);
    expect(framesTo(effects, "alice")).toEqual([ev.added("bob"), ev.waitReady(60)]);
    expect(effects).toContainEqual({ type: "timer", name: "countdown", at: T0 + 60_000, kind: "game" });
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: true, deadline: T0 + 60_000 } });
  });

  it("join while counting: the joiner also gets PHASE_WAIT_READY with the seconds left; nobody else does", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.wait(15);
    const effects = d.join("carol");
    expect(framesTo(effects, "carol")).toEqual([
      ev.added("carol"),
      ev.added("alice"),
      ev.added("bob"),
      ev.waitReady(45),
    ]);
    expect(framesTo(effects, "alice")).toEqual([ev.added("carol")]);
    expect(framesTo(effects, "bob")).toEqual([ev.added("carol")]);
    // The countdown keeps its deadline.
    expect(effects.filter((e) => e.type === "timer")).toEqual([]);
  });

  it("seconds left carry millisecond precision", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.ctx.advance(12_345);
    expect(framesTo(d.join("carol"), "carol").at(-1)).toEqual(ev.waitReady(47.655));
  });

  it("a chosen vehicle is shown before the player's line, to everyone, also in later joiners' lists", () => {
    const d = activityLobby({ minTeams: 4 });
    expect(framesTo(d.join("alice", "car-7"), "alice")).toEqual([ev.added("alice", "car-7")]);
    const effects = d.join("bob", "car-9");
    expect(framesTo(effects, "bob")).toEqual([ev.added("bob", "car-9"), ev.added("alice", "car-7")]);
    expect(framesTo(effects, "alice")).toEqual([ev.added("bob", "car-9")]);
    const [first] = framesTo(effects, "alice");
    expect(Object.keys(first!)).toEqual(["type", "event", "vehicle", "player", "name"]);
  });

  it("ready / not ready: PLAYER_READY / PLAYER_NOT_READY to everyone; the same flag again changes nothing", () => {
    const d = activityLobbyOf(["alice", "bob", "carol"], { minTeams: 4 });
    expect(d.ready("bob")).toEqual([
      { type: "push", to: ["alice", "bob", "carol"], frame: ev.ready("bob") },
      { type: "reply" },
    ]);
    const before = d.state;
    expect(d.ready("bob")).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(before);
    expect(d.ready("bob", false)).toEqual([
      { type: "push", to: ["alice", "bob", "carol"], frame: ev.notReady("bob") },
      { type: "reply" },
    ]);
  });

  it("ready from a player not in the lobby is refused NOT_IN_LOBBY, the state untouched", () => {
    const d = activityLobbyOf(["alice"]);
    expectRefused(d, { type: "ready", player: "mallory", ready: true }, "NOT_IN_LOBBY");
  });

  it("all ready (with the minimum): the timer drops to startDelay, PHASE_WAIT_START {startDelay} to everyone", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.wait(5);
    d.ready("alice");
    const effects = d.ready("bob");
    expect(effects).toEqual([
      { type: "push", to: ["alice", "bob"], frame: ev.ready("bob") },
      { type: "timer", name: "countdown", at: T0 + 15_000, kind: "game" },
      { type: "push", to: ["alice", "bob"], frame: ev.waitStart(10) },
      { type: "reply" },
    ]);
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: true, deadline: T0 + 15_000 } });
  });

  it("all ready without the minimum cuts nothing and starts nothing", () => {
    const d = activityLobbyOf(["alice", "bob"], { minTeams: 3 });
    d.ready("alice");
    const effects = d.ready("bob");
    expect(effects).toEqual([
      { type: "push", to: ["alice", "bob"], frame: ev.ready("bob") },
      { type: "reply" },
    ]);
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: false, remainingMs: 60_000 } });
    // The third player brings the minimum but is not ready: the full wait, no cut.
    const joined = d.join("carol");
    expect(framesTo(joined, "alice")).toEqual([ev.added("carol"), ev.waitReady(60)]);
    expect(framesTo(joined, "carol")).toEqual([
      ev.added("carol"),
      ev.added("alice"),
      ev.ready("alice"),
      ev.added("bob"),
      ev.ready("bob"),
      ev.waitReady(60),
    ]);
  });

  it("all ready with startDelay or less left changes nothing", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.wait(50);
    d.ready("alice");
    expect(d.ready("bob")).toEqual([
      { type: "push", to: ["alice", "bob"], frame: ev.ready("bob") },
      { type: "reply" },
    ]);
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: true, deadline: T0 + 60_000 } });
  });

  it("a not-ready player leaving makes everyone left ready: the cut follows the removal", () => {
    const d = activityLobbyOf(["alice", "bob", "carol"]);
    d.ready("alice");
    d.ready("bob");
    d.wait(1);
    const effects = d.leave("carol");
    expect(framesTo(effects, "carol")).toEqual([ev.removed("carol")]);
    expect(framesTo(effects, "alice")).toEqual([ev.removed("carol"), ev.waitStart(10)]);
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: true, deadline: T0 + 11_000 } });
  });

  it("leave: PLAYER_REMOVED to everyone, the leaver included", () => {
    const d = activityLobbyOf(["alice", "bob", "carol"]);
    const effects = d.leave("bob");
    expect(effects).toEqual([
      { type: "push", to: ["alice", "bob", "carol"], frame: ev.removed("bob") },
      { type: "reply" },
      status(2, 4),
      registry("bob", "left"),
    ]);
    expect(d.state.players.map((p) => p.id)).toEqual(["alice", "carol"]);
  });

  it("leaving a lobby one is not in is a success that changes nothing", () => {
    const d = activityLobbyOf(["alice"]);
    const before = d.state;
    expect(d.leave("mallory")).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(before);
  });

  it("the last player out closes the lobby: PLAYER_REMOVED to it, lobbyClosed to the directory, then stop", () => {
    const d = activityLobbyOf(["alice"]);
    expect(d.leave("alice")).toEqual([
      { type: "push", to: ["alice"], frame: ev.removed("alice") },
      { type: "reply" },
      { type: "tell", to: DIR, message: { type: "lobbyClosed", lobby: KEY } },
      registry("alice", "left"),
      { type: "stop" },
    ]);
  });

  it("joining again resends the full picture to that player only (a retried join changes nothing)", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.ready("alice");
    d.wait(20);
    const before = d.state;
    expect(d.join("alice")).toEqual([
      { type: "push", to: ["alice"], frame: ev.added("alice") },
      { type: "push", to: ["alice"], frame: ev.ready("alice") },
      { type: "push", to: ["alice"], frame: ev.added("bob") },
      { type: "push", to: ["alice"], frame: ev.waitReady(40) },
      { type: "reply", value: { lobby: KEY } },
    ]);
    expect(d.state).toBe(before);
  });

  it("a full lobby refuses FULL with its state untouched (the gateway asks the directory again)", () => {
    const d = activityLobbyOf(["alice", "bob", "carol", "dave"]);
    expectRefused(d, { type: "join", player: { id: "erin", name: "Erin" } }, "FULL");
  });

  it("every frame the lobby pushes is a valid activity frame", () => {
    const d = activityLobby();
    const effects = [
      ...d.join("alice", "car-1"),
      ...d.join("bob"),
      ...d.ready("alice"),
      ...d.ready("bob"),
      ...d.ready("bob", false),
      ...d.leave("bob"),
    ];
    const frames = effects.flatMap((e) => (e.type === "push" ? [e.frame] : []));
    expect(frames.length).toBeGreaterThan(6);
    for (const frame of frames)
      expect(activityFrameSchema.safeParse(frame).success, JSON.stringify(frame)).toBe(true);
  });
});
