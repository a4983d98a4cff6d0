import { describe, expect, it } from "vitest";
import { expectRefused, lobbyInit, pushed, roomDriver, turns } from "./support/room-driver.ts";

/**
 * After a failover (FLEET-PROTOCOL, Rooms) the new owner asks every seat for the turns it holds after the
 * snapshot (`turnsWanted`), takes the highest turn any seat holds — every copy of a turn must agree, or
 * it is reported — sends each seat the turns it lacks and resumes at the next turn.
 */

const turn = (n: number, data = `t${n}`) => ({ turn: n, commands: [{ side: 1, data }], ai: [] });
const held = (player: string, after: number, list: object[], done = true) => ({
  type: "heldTurns",
  player,
  after,
  turns: list,
  done,
});

/** A lobby room that sent 5 turns (alice, bob, carol seated) and was restored on a new node. */
function failedOver(connected = ["alice"]) {
  const d = roomDriver(lobbyInit);
  d.advance(500);
  const effects = d.send({ type: "restored", reason: "failover", connected });
  return { d, effects };
}

describe("collecting the turns after a failover", () => {
  it("asks the seats present for the turns after the snapshot, and each seat that comes back", () => {
    const { d, effects } = failedOver();
    expect(pushed(effects, "turnsWanted")).toEqual([
      { to: ["alice"], frame: { type: "turnsWanted", after: 5 } },
    ]);
    const back = d.send({ type: "connection", player: "bob", connected: true });
    expect(pushed(back, "turnsWanted")).toEqual([{ to: ["bob"], frame: { type: "turnsWanted", after: 5 } }]);
  });

  it("asks a seat again when it reconnects or joins again while its answer is still owed", () => {
    // alice's session was on the new node at the restore, so she is connected and was asked at once —
    // but her answer can be refused before her session there knows its room (found on a real fleet).
    const { d } = failedOver(["alice", "bob", "carol"]);
    const again = d.send({ type: "connection", player: "alice", connected: true });
    expect(pushed(again, "turnsWanted")).toEqual([
      { to: ["alice"], frame: { type: "turnsWanted", after: 5 } },
    ]);
    const joined = d.send({ type: "join", player: { id: "alice", name: "Alice" } });
    expect(pushed(joined, "turnsWanted")).toEqual([
      { to: ["alice"], frame: { type: "turnsWanted", after: 5 } },
    ]);
    expect(pushed(joined, "room")).toHaveLength(1);
    // Part of her answer arrived: the question goes on from there.
    d.send(held("alice", 5, [turn(6)], false));
    const partly = d.send({ type: "join", player: { id: "alice", name: "Alice" } });
    expect(pushed(partly, "turnsWanted")).toEqual([
      { to: ["alice"], frame: { type: "turnsWanted", after: 6 } },
    ]);
    // Once she answered in full nobody asks her again; the others still are.
    d.send(held("alice", 6, [turn(7)]));
    expect(pushed(d.send({ type: "join", player: { id: "alice", name: "Alice" } }), "turnsWanted")).toEqual(
      [],
    );
    expect(pushed(d.send({ type: "connection", player: "bob", connected: true }), "turnsWanted")).toEqual([
      { to: ["bob"], frame: { type: "turnsWanted", after: 5 } },
    ]);
    // Outside a restore a repeated join or reconnect asks nothing.
    d.send(held("bob", 5, []));
    d.send(held("carol", 5, []));
    expect(d.state.clock.status).toBe("running");
    expect(pushed(d.send({ type: "join", player: { id: "bob", name: "Bob" } }), "turnsWanted")).toEqual([]);
    expect(pushed(d.send({ type: "connection", player: "bob", connected: true }), "turnsWanted")).toEqual([]);
  });

  it("resumes after the highest turn any seat holds and sends the others what they lack", () => {
    const { d } = failedOver();
    d.send({ type: "connection", player: "bob", connected: true });
    d.send({ type: "connection", player: "carol", connected: true });
    d.send(held("alice", 5, [turn(6), turn(7)]));
    // bob answers in two batches, the second going on where the first ended.
    d.send(held("bob", 5, [turn(6)], false));
    expect(d.state.clock.status).toBe("paused");
    d.send(held("bob", 6, [turn(7), turn(8)]));
    expect(d.state.clock.status).toBe("paused");
    const effects = d.send(held("carol", 5, []));

    expect(pushed(effects, "resumed")[0]?.frame).toEqual({ type: "resumed", turn: 9 });
    const caughtUp = pushed(effects, "turn").map((p) => [p.to[0], p.frame.turn]);
    expect(caughtUp).toEqual([
      ["alice", 8],
      ["carol", 6],
      ["carol", 7],
      ["carol", 8],
    ]);
    expect(pushed(effects, "turn")[1]?.frame).toEqual({
      type: "turn",
      turn: 6,
      commands: [{ side: 1, data: "t6" }],
    });
    // The turns sent go out before the clock runs again, and nobody hears of a desync.
    const firstResumed = effects.findIndex((e) => e.type === "push" && e.frame.type === "resumed");
    const lastTurn = effects.findLastIndex((e) => e.type === "push" && e.frame.type === "turn");
    expect(lastTurn).toBeLessThan(firstResumed);
    expect(pushed(effects, "desync")).toEqual([]);
    expect(d.state.recentTurns.map((t) => t.turn)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(turns(d.advance(100))).toEqual([{ type: "turn", turn: 9, commands: [] }]);
    // A player that came back later finds the recovered turns in the window.
    const again = d.send({ type: "turns", player: "carol", after: 5 });
    expect(turns(again).map((t) => t.turn)).toEqual([6, 7, 8, 9]);
  });

  it("reports a turn whose copies disagree as a desync, once", () => {
    const { d } = failedOver(["alice", "bob", "carol"]);
    d.send(held("alice", 5, [turn(6), turn(7)]));
    const effects = d.send(held("bob", 5, [turn(6), turn(7, "other")]));
    expect(pushed(effects, "desync")).toEqual([
      { to: ["alice", "bob", "carol"], frame: { type: "desync", turn: 7, sides: [1, 2] } },
    ]);
    const third = d.send(held("carol", 5, [turn(6), turn(7, "third")]));
    expect(pushed(third, "desync")).toEqual([]);
    expect(pushed(third, "resumed")[0]?.frame).toEqual({ type: "resumed", turn: 8 });
  });

  it("refuses batches that do not go on from the seat's last, gaps, and answers when not waiting", () => {
    const { d } = failedOver(["alice", "bob", "carol"]);
    expectRefused(d, held("alice", 4, [turn(5)]), "INVALID");
    expectRefused(d, held("alice", 5, [turn(6), turn(8)]), "INVALID");
    expectRefused(d, held("mallory", 5, []), "NOT_IN_LOBBY");
    d.send(held("alice", 5, [turn(6)], false));
    expectRefused(d, held("alice", 5, [turn(6)]), "INVALID");
    const running = roomDriver(lobbyInit);
    running.advance(300);
    expectRefused(running, held("alice", 3, []), "INVALID");
  });

  it("after a migration asks for nothing: the snapshot was the old owner's last state", () => {
    const d = roomDriver(lobbyInit);
    d.advance(500);
    const effects = d.send({ type: "restored", reason: "migration", connected: ["alice"] });
    expect(pushed(effects, "turnsWanted")).toEqual([]);
  });
});
