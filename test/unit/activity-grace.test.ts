import { describe, expect, it } from "vitest";
import { activityLobbyIdle } from "../../actors/activity/index.ts";
import { activityLobbyOf, ev, framesTo, KEY, roster, T0 } from "./support/activity-driver.ts";

/** SPEC §2: a player leaves when it disconnects, after the grace; a restore costs nobody a place. */

const drop = (player: string) => ({ type: "connection", player, connected: false });
const back = (player: string) => ({ type: "connection", player, connected: true });

describe("activity lobby disconnects", () => {
  it("a dropped player keeps its place for the grace; the others hear nothing", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    expect(d.send(drop("bob"))).toEqual([
      { type: "timer", name: "grace:bob", at: T0 + 10_000, kind: "grace" },
      { type: "reply" },
    ]);
    expect(roster(d.state)).toEqual([
      ["alice", false, true],
      ["bob", false, false],
    ]);
    expect(activityLobbyIdle(d.state)).toBe(false);
  });

  it("when the grace runs out it leaves: PLAYER_REMOVED to everyone, and the countdown pauses below the minimum", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.send(drop("bob"));
    d.wait(10);
    const effects = d.fire("grace:bob");
    expect(framesTo(effects, "alice")).toEqual([ev.removed("bob"), ev.paused(50)]);
    expect(framesTo(effects, "bob")).toEqual([ev.removed("bob")]);
    // The fired timer is gone already: nothing to cancel.
    expect(effects.filter((e) => e.type === "cancelTimer" && e.name.startsWith("grace"))).toEqual([]);
    expect(d.state.players.map((p) => p.id)).toEqual(["alice"]);
  });

  it("coming back within the grace cancels it and sends that player the full picture", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.ready("alice");
    d.send(drop("bob"));
    d.wait(9);
    expect(d.send(back("bob"))).toEqual([
      { type: "cancelTimer", name: "grace:bob" },
      { type: "push", to: ["bob"], frame: ev.added("bob") },
      { type: "push", to: ["bob"], frame: ev.added("alice") },
      { type: "push", to: ["bob"], frame: ev.ready("alice") },
      { type: "push", to: ["bob"], frame: ev.waitReady(51) },
      { type: "reply" },
    ]);
    // A grace that fires anyway is stale.
    const before = d.state;
    expect(d.fire("grace:bob")).toEqual([]);
    expect(d.state).toBe(before);
  });

  it("joining again within the grace does the same", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.send(drop("bob"));
    const effects = d.join("bob");
    expect(effects[0]).toEqual({ type: "cancelTimer", name: "grace:bob" });
    expect(framesTo(effects, "bob")).toEqual([ev.added("bob"), ev.added("alice"), ev.waitReady(60)]);
    expect(effects.at(-1)).toEqual({ type: "reply", value: { lobby: KEY } });
  });

  it("leaving while away cancels the grace", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.send(drop("bob"));
    expect(d.leave("bob")[0]).toEqual({ type: "cancelTimer", name: "grace:bob" });
  });

  it("with a grace of 0 a dropped player leaves at once (the seed's behaviour)", () => {
    const d = activityLobbyOf(["alice", "bob"], {}, { graceSeconds: 0 });
    const effects = d.send(drop("bob"));
    expect(framesTo(effects, "alice")).toEqual([ev.removed("bob"), ev.paused(60)]);
  });

  it("a repeated drop, a drop of a stranger and a resumed session change nothing but resync", () => {
    const d = activityLobbyOf(["alice", "bob"]);
    d.send(drop("bob"));
    const before = d.state;
    expect(d.send(drop("bob"))).toEqual([{ type: "reply" }]);
    expect(d.send(drop("mallory"))).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(before);
    expect(framesTo(d.send(back("alice")), "alice")).toEqual([
      ev.added("alice"),
      ev.added("bob"),
      ev.waitReady(60),
    ]);
    expect(d.state).toBe(before);
  });

  it("after a failover players here get their picture; those not here get the restore grace, even with a grace of 0", () => {
    const d = activityLobbyOf(["alice", "bob", "carol"], {}, { graceSeconds: 0, restoreGraceSeconds: 30 });
    const effects = d.send({ type: "restored", reason: "failover", connected: ["alice"] });
    expect(effects).toEqual([
      { type: "timer", name: "grace:bob", at: T0 + 30_000, kind: "grace" },
      { type: "timer", name: "grace:carol", at: T0 + 30_000, kind: "grace" },
      { type: "push", to: ["alice"], frame: ev.added("alice") },
      { type: "push", to: ["alice"], frame: ev.added("bob") },
      { type: "push", to: ["alice"], frame: ev.added("carol") },
      { type: "push", to: ["alice"], frame: ev.waitReady(60) },
    ]);
    expect(roster(d.state)).toEqual([
      ["alice", false, true],
      ["bob", false, false],
      ["carol", false, false],
    ]);
  });

  it("a player already away before the failover keeps the grace it had left; one back on the new node is reconnected", () => {
    const d = activityLobbyOf(["alice", "bob", "carol"]);
    d.send(drop("bob"));
    d.send(drop("carol"));
    const effects = d.send({ type: "restored", reason: "migration", connected: ["alice", "carol"] });
    expect(effects.filter((e) => e.type !== "push")).toEqual([{ type: "cancelTimer", name: "grace:carol" }]);
    expect(roster(d.state)).toEqual([
      ["alice", false, true],
      ["bob", false, false],
      ["carol", false, true],
    ]);
  });
});
