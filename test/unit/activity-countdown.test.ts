import { describe, expect, it } from "vitest";
import { activityLobbyIdle } from "../../actors/activity/index.ts";
import { activityLobbyOf, ev, framesTo, T0 } from "./support/activity-driver.ts";

/** SPEC §2: the countdown runs only with the minimum, pauses below it and never starts over. */

describe("activity lobby countdown", () => {
  it("does not run below the minimum: one racer waits with the full waitTime held", () => {
    const d = activityLobbyOf(["alice"]);
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: false, remainingMs: 60_000 } });
    expect(activityLobbyIdle(d.state)).toBe(true);
  });

  it("runs from the moment the minimum is there, as an absolute deadline", () => {
    const d = activityLobbyOf(["alice"]);
    d.wait(30);
    const effects = d.join("bob");
    expect(effects).toContainEqual({ type: "timer", name: "countdown", at: T0 + 90_000, kind: "game" });
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: true, deadline: T0 + 90_000 } });
    expect(activityLobbyIdle(d.state)).toBe(false);
  });

  it("pauses when players leave below the minimum, keeping the time left: PHASE_WAIT_PAUSED to those still there", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.wait(20);
    const effects = d.leave("bob");
    expect(effects.slice(0, 3)).toEqual([
      { type: "push", to: ["alice", "bob"], frame: ev.removed("bob") },
      { type: "cancelTimer", name: "countdown" },
      { type: "push", to: ["alice"], frame: ev.paused(40) },
    ]);
    expect(framesTo(effects, "bob")).toEqual([ev.removed("bob")]);
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: false, remainingMs: 40_000 } });
  });

  it("resumes at the same second when the minimum is back, however long the pause: it does not start over", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.wait(20);
    d.leave("bob");
    d.wait(300);
    const effects = d.join("carol");
    const now = T0 + 320_000;
    expect(effects).toContainEqual({ type: "timer", name: "countdown", at: now + 40_000, kind: "game" });
    expect(framesTo(effects, "alice")).toEqual([ev.added("carol"), ev.waitReady(40)]);
    expect(framesTo(effects, "carol")).toEqual([ev.added("carol"), ev.added("alice"), ev.waitReady(40)]);
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: true, deadline: now + 40_000 } });
  });

  it("pauses and resumes more than once, each time from what was left", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.wait(10);
    d.leave("bob"); // 50 s left
    d.wait(5);
    d.join("bob");
    d.wait(15);
    d.leave("bob"); // 35 s left
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: false, remainingMs: 35_000 } });
    d.join("carol");
    expect(d.state.stage).toEqual({
      phase: "waiting",
      countdown: { running: true, deadline: d.ctx.now + 35_000 },
    });
  });

  it("a pause after the all-ready cut keeps the cut time left", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.ready("alice");
    d.ready("bob"); // 10 s left
    d.wait(4);
    const effects = d.leave("bob");
    expect(framesTo(effects, "alice")).toEqual([ev.removed("bob"), ev.paused(6)]);
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: false, remainingMs: 6_000 } });
  });

  it("a player joining after the cut does not lengthen the countdown; readying again does not cut again", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.ready("alice");
    d.ready("bob");
    d.wait(2);
    expect(framesTo(d.join("carol"), "carol").at(-1)).toEqual(ev.waitReady(8));
    expect(framesTo(d.ready("carol"), "alice")).toEqual([ev.ready("carol")]);
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: true, deadline: T0 + 10_000 } });
  });

  it("a player joining a paused lobby is told the time kept: PHASE_WAIT_PAUSED after the players, as the others heard it", () => {
    const d = activityLobbyOf(["alice", "bob", "carol"], { minTeams: 3 });
    d.wait(20);
    d.leave("carol"); // paused with 40 s left
    d.leave("bob");
    d.wait(100);
    const effects = d.join("dave");
    expect(framesTo(effects, "dave")).toEqual([ev.added("dave"), ev.added("alice"), ev.paused(40)]);
    // The others hear only the newcomer: nothing changed on their clock.
    expect(framesTo(effects, "alice")).toEqual([ev.added("dave")]);
    expect(d.state.stage).toEqual({ phase: "waiting", countdown: { running: false, remainingMs: 40_000 } });
    expect(effects.filter((e) => e.type === "timer")).toEqual([]);
  });

  it("a player back on a paused lobby gets the time kept in its full picture too; a countdown that never ran says nothing", () => {
    const d = activityLobbyOf(["alice", "bob", "carol"], { minTeams: 3 });
    d.wait(15);
    d.leave("carol"); // 45 s left
    d.send({ type: "connection", player: "bob", connected: false });
    expect(framesTo(d.send({ type: "connection", player: "bob", connected: true }), "bob")).toEqual([
      ev.added("bob"),
      ev.added("alice"),
      ev.paused(45),
    ]);
    const fresh = activityLobbyOf(["alice"], { minTeams: 3 });
    expect(framesTo(fresh.join("bob"), "bob")).toEqual([ev.added("bob"), ev.added("alice")]);
  });

  it("solo play: one player starts the countdown, and being ready cuts it", () => {
    const d = activityLobbyOf([], { minTeams: 3, soloPlay: true });
    expect(framesTo(d.join("alice"), "alice")).toEqual([ev.added("alice"), ev.waitReady(60)]);
    expect(framesTo(d.ready("alice"), "alice")).toEqual([ev.ready("alice"), ev.waitStart(10)]);
  });

  it("team activities count the team size: minimum minTeamSize, capacity maxTeamSize", () => {
    const d = activityLobbyOf(["alice", "bob"], { minTeams: 1, maxTeams: 1, minTeamSize: 3, maxTeamSize: 4 });
    expect(d.state.stage).toMatchObject({ countdown: { running: false } });
    d.join("carol");
    expect(d.state.stage).toMatchObject({ countdown: { running: true } });
    d.join("dave");
    expect(d.join("erin")).toMatchObject([{ type: "reject", code: "FULL" }]);
  });
});
