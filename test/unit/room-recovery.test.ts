import { describe, expect, it } from "vitest";
import { roomKind } from "../../actors/room/index.ts";
import { ActorSystem, ManualScheduler, seededRandom, type StampedFrame } from "../../actors/runtime/index.ts";
import { createHarness } from "../../actors/runtime/harness.ts";
import { expectRefused, lobbyInit, pushed, roomDriver, turns } from "./support/room-driver.ts";

/**
 * After a restore on a new node (FLEET-PROTOCOL, Rooms): the clock stays paused until every human seat
 * is back or handed to AI and, after a failover, has reported its last turn; it resumes at max + 1.
 */

const restoredMsg = (connected: string[], reason = "failover") => ({ type: "restored", reason, connected });
const back = (player: string) => ({ type: "connection", player, connected: true });
const report = (player: string, lastTurn: number, digest = `d${lastTurn}`) => ({
  type: "turnsReport",
  player,
  lastTurn,
  digest,
});

/** A lobby room that sent 5 turns, with a command queued, then was restored after a failover. */
function failedOver(connected = ["alice"]) {
  const d = roomDriver(lobbyInit);
  d.advance(500);
  d.send({ type: "command", player: "bob", data: "maybe sent" });
  const effects = d.send(restoredMsg(connected));
  return { d, effects };
}

describe("after a failover", () => {
  it("pauses, says who is missing and where the snapshot stands, and drops the queued commands", () => {
    const { d, effects } = failedOver();
    expect(effects).toContainEqual({ type: "cancelTimer", name: "turn" });
    expect(pushed(effects, "paused")).toEqual([
      {
        to: ["alice", "bob", "carol"],
        frame: { type: "paused", reason: "restored", missing: ["bob", "carol"], turn: 5 },
      },
    ]);
    expect(d.state.queue).toEqual([]);
    expect(d.state.recovery).toEqual({ reason: "failover", fromTurn: 5, reports: [], turns: [] });
    expect(turns(d.advance(5000))).toEqual([]);
  });

  it("a lobby's room asks its lobby which seats are back: their sessions may be on the lobby's node", () => {
    const { effects } = failedOver([]);
    expect(effects).toContainEqual({
      type: "tell",
      to: "lobby/ABC123",
      message: { type: "roomRestored", room: expect.any(String) as string },
    });
  });

  it("stays paused until every human is back and has reported, then resumes at max(lastTurn) + 1", () => {
    const { d } = failedOver();
    d.send(back("bob"));
    d.send(back("carol"));
    d.send(report("alice", 7));
    d.send(report("carol", 6));
    expect(d.state.clock.status).toBe("paused");
    expectRefused(d, { type: "resume", player: "alice" }, "INVALID");
    const effects = d.send(report("bob", 7));
    expect(pushed(effects, "resumed")).toEqual([
      { to: ["alice", "bob", "carol"], frame: { type: "resumed", turn: 8 } },
    ]);
    expect(pushed(effects, "desync")).toEqual([]);
    expect(turns(d.advance(200)).map((f) => f.turn)).toEqual([8, 9]);
    expect(d.state.recovery?.reports.map((r) => [r.side, r.lastTurn])).toEqual([
      [1, 7],
      [3, 6],
      [2, 7],
    ]);
  });

  it("all reported but one still missing: waits, until the host hands that seat to AI", () => {
    const { d } = failedOver(["alice", "bob"]);
    d.send(report("alice", 5));
    d.send(report("bob", 6));
    expect(d.state.clock.status).toBe("paused");
    const effects = d.send({ type: "resume", player: "alice", handToAi: true });
    expect(d.state.seats.find((s) => s.seat === 3)).toMatchObject({ player: null, ai: true });
    expect(pushed(effects, "resumed")[0]?.frame).toEqual({ type: "resumed", turn: 7 });
    expect(turns(d.advance(100))).toEqual([{ type: "turn", turn: 7, commands: [], ai: [3] }]);
  });

  it("the host cannot resume while a present seat has not reported", () => {
    const { d } = failedOver(["alice", "bob", "carol"]);
    d.send(report("alice", 5));
    expectRefused(d, { type: "resume", player: "alice", handToAi: true }, "INVALID");
  });

  it("a seat leaving is handed to AI and no longer awaited", () => {
    const { d } = failedOver(["alice", "bob"]);
    d.send(report("alice", 5));
    d.send(report("bob", 5));
    const effects = d.send({ type: "leaveSeat", player: "carol" });
    expect(pushed(effects, "resumed")[0]?.frame).toEqual({ type: "resumed", turn: 6 });
  });

  it("copies that disagree on the same turn are reported as a desync once; the clock resumes", () => {
    const { d } = failedOver(["alice", "bob", "carol"]);
    d.send(report("alice", 9, "x"));
    d.send(report("bob", 9, "y"));
    const effects = d.send(report("carol", 8, "z"));
    expect(pushed(effects, "desync")).toEqual([
      { to: ["alice", "bob", "carol"], frame: { type: "desync", turn: 9, sides: [1, 2] } },
    ]);
    expect(pushed(effects, "resumed")[0]?.frame).toEqual({ type: "resumed", turn: 10 });
  });

  it("reports behind the snapshot resume after the snapshot's last turn; a report replaces the earlier one", () => {
    const { d } = failedOver(["alice", "bob", "carol"]);
    d.send(report("alice", 9));
    d.send(report("alice", 2));
    d.send(report("bob", 3));
    const effects = d.send(report("carol", 4));
    expect(pushed(effects, "resumed")[0]?.frame).toEqual({ type: "resumed", turn: 6 });
  });

  it("a command during the restore goes out in the first turn after it, whose number is not known yet", () => {
    const { d } = failedOver(["alice", "bob", "carol"]);
    expect(d.send({ type: "command", player: "alice", data: "later" })).toEqual([{ type: "reply" }]);
    for (const p of ["alice", "bob", "carol"]) d.send(report(p, 8));
    expect(turns(d.advance(100))).toEqual([
      { type: "turn", turn: 9, commands: [{ side: 1, data: "later" }] },
    ]);
  });

  it("a report outside a restore is INVALID; from a stranger NOT_IN_LOBBY", () => {
    const d = roomDriver(lobbyInit);
    expectRefused(d, report("alice", 3), "INVALID");
    const { d: restored } = failedOver();
    expectRefused(restored, report("zed", 3), "NOT_IN_LOBBY");
  });
});

describe("after a migration or before the start", () => {
  it("a migration needs no reports: the clock resumes once everyone is here", () => {
    const d = roomDriver(lobbyInit);
    d.advance(300);
    d.send({ type: "command", player: "bob", data: "kept" });
    const all = d.send(restoredMsg(["alice", "bob", "carol"], "migration"));
    expect(pushed(all, "resumed")[0]?.frame).toEqual({ type: "resumed", turn: 4 });
    expect(turns(d.advance(100))).toEqual([{ type: "turn", turn: 4, commands: [{ side: 2, data: "kept" }] }]);
    d.send(restoredMsg(["alice"], "migration"));
    d.send(back("bob"));
    expect(d.state.clock.status).toBe("paused");
    expect(pushed(d.send(back("carol")), "resumed")[0]?.frame).toEqual({ type: "resumed", turn: 5 });
  });

  it("a room still in setup only learns who is here", () => {
    const d = roomDriver({
      code: "QWERTY",
      direct: true,
      host: { id: "alice", name: "A" },
      seats: 2,
      mode: "m",
    });
    const effects = d.send(restoredMsg([], "failover"));
    // Nobody is here: only the abandon timer, which closes the room if nobody comes back.
    expect(effects).toEqual([
      { type: "timer", name: "abandon", at: expect.any(Number) as number, kind: "grace" },
    ]);
    expect(d.state.seats[0]?.connected).toBe(false);
    expect(d.state.clock).toEqual({ status: "stopped" });
  });
});

describe("a failover on the runtime", () => {
  it("the new owner continues at the turn after the highest one any seat holds: none lost, none repeated", async () => {
    const h = createHarness({ kinds: [{ kind: roomKind() as never }] });
    await h.system.spawn("room/QWERTY", lobbyInit);
    await h.clock.advance(3500);
    const sentByOld = h.framesOf("alice").filter((f) => f.type === "turn");
    expect(sentByOld.at(-1)?.turn).toBe(35);
    const stored = (h.store.peek("room/QWERTY")?.state as { lastTurn: number }).lastTurn;
    expect(stored).toBeLessThan(35);
    h.system.close();

    const clock = new ManualScheduler(h.clock.now());
    const frames: { player: string; frame: StampedFrame }[] = [];
    const system = new ActorSystem({
      store: h.store,
      outbox: { push: (players, frame) => players.forEach((player) => frames.push({ player, frame })) },
      scheduler: clock,
      random: seededRandom(2),
      node: h.node,
    }).register(roomKind());
    system.tell("room/QWERTY", restoredMsg([]));
    await clock.advance(1000);
    expect(frames.filter((f) => f.frame.type === "turn")).toEqual([]);
    for (const p of ["alice", "bob", "carol"]) {
      await system.ask("room/QWERTY", back(p));
      await system.ask("room/QWERTY", report(p, p === "carol" ? 34 : 35));
    }
    await clock.advance(300);
    const sentByNew = frames
      .filter((f) => f.player === "alice" && f.frame.type === "turn")
      .map((f) => f.frame.turn);
    expect(sentByNew).toEqual([36, 37, 38]);
    system.close();
  });
});
