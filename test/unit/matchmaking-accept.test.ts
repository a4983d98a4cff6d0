import { describe, expect, it } from "vitest";
import type { LobbyTypeInput } from "../../actors/matchmaking/index.ts";
import { cursorParty, gp, matchedLobby, ofType, pushed, withRules } from "./support/matchmaking-driver.ts";

/** SPEC §3–§4: a lobby type with an accept phase asks every member before its room starts. */

const L = "mmlobby/CursorPartyV2/1";
const type: LobbyTypeInput = {
  ...withRules(cursorParty, { everyReadyMinPercent: 100 }),
  accept: { timeoutSecs: 10 },
};

/** Alice, Bob and Carol, all ready once the earliest start has passed: the accept phase begins. */
function matched() {
  const l = matchedLobby(type);
  l.join([gp("bob")]);
  l.join([gp("carol")]);
  l.fire("early", l.t0 + 1_000);
  l.ready("alice");
  l.ready("bob");
  const effects = l.ready("carol");
  return Object.assign(l, { effects, acceptBy: l.ctx.now + 10_000 });
}

const spawned = (effects: readonly { type: string }[]) => effects.filter((e) => e.type === "spawn").length;

describe("the accept phase", () => {
  it("a decided start sends everyone matchFound and arms the accept deadline; no room yet", () => {
    const l = matched();
    expect(l.state.phase).toBe("starting");
    expect(spawned(l.effects)).toBe(0);
    expect(ofType(l.effects, "push").find((p) => p.frame.type === "matchFound")).toEqual({
      type: "push",
      to: ["alice", "bob", "carol"],
      frame: { type: "matchFound", lobby: L, matchId: `${L}#1`, acceptBy: l.acceptBy },
    });
    expect(ofType(l.effects, "timer")).toEqual([
      { type: "timer", name: "accept", at: l.acceptBy, kind: "game" },
    ]);
  });

  it("all accept: the room starts", () => {
    const l = matched();
    expect(l.send({ type: "accept", player: "alice" })).toEqual([{ type: "reply" }]);
    expect(spawned(l.send({ type: "accept", player: "bob" }))).toBe(0);
    const effects = l.send({ type: "accept", player: "carol" });
    expect(spawned(effects)).toBe(1);
    expect(effects).toContainEqual({ type: "cancelTimer", name: "accept" });
    expect(l.state.phase).toBe("playing");
  });

  it("one declines: it is removed, the others hear matchCancelled and the lobby is back in pre_game", () => {
    const l = matched();
    l.send({ type: "accept", player: "alice" });
    const effects = l.send({ type: "decline", player: "bob" });
    expect(l.ids()).toEqual(["alice", "carol"]);
    expect(l.state).toMatchObject({ phase: "pre_game", accepting: null });
    // The others ready again: keeping their flags would ask them again at once, in a loop.
    expect(l.state.members.map((m) => m.isReady)).toEqual([false, false]);
    expect(pushed(effects)).toContainEqual(["lobbyRemoved", ["bob"]]);
    expect(ofType(effects, "push").find((p) => p.frame.type === "matchCancelled")).toEqual({
      type: "push",
      to: ["alice", "carol"],
      frame: { type: "matchCancelled", lobby: L, matchId: `${L}#1`, reason: "declined" },
    });
    // The timetable runs again (tooLate would otherwise never come).
    expect(ofType(effects, "timer").map((t) => t.name)).toEqual(["early", "onTime", "tooLate"]);
  });

  it("timeout: whoever has not accepted is removed; those who did stay, in pre_game", () => {
    const l = matched();
    l.send({ type: "accept", player: "carol" });
    expect(l.fire("accept", l.acceptBy - 1)).toEqual([]); // early fire: stale
    const effects = l.fire("accept", l.acceptBy);
    expect(l.ids()).toEqual(["carol"]);
    expect(l.state.owner).toBe("carol");
    expect(l.state.phase).toBe("pre_game");
    expect(pushed(effects)).toContainEqual(["lobbyRemoved", ["alice", "bob"]]);
    expect(ofType(effects, "push").find((p) => p.frame.type === "lobbyRemoved")?.frame).toMatchObject({
      reason: "acceptTimeout",
    });
  });

  it("nobody joins during the accept phase, even with allowJoinInProgress; accepting outside it is refused", () => {
    const l = matched();
    const before = l.state;
    const effects = l.join([gp("dave")]);
    expect(l.state).toBe(before);
    expect(ofType(effects, "tell")[0]?.message).toMatchObject({ type: "joinResult", ok: false });
    const idle = matchedLobby(type);
    expect(idle.send({ type: "accept", player: "alice" })).toEqual([
      { type: "reject", code: "INVALID", message: "no match is waiting to be accepted" },
    ]);
  });
});
