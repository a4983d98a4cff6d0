import { describe, expect, it } from "vitest";
import { roomKind, roomLimits, type RoomState } from "../../actors/room/index.ts";
import { createHarness } from "../../actors/runtime/harness.ts";
import {
  expectRefused,
  lobbyInit,
  pushed,
  roomDriver,
  startedDirectRoom,
  turns,
} from "./support/room-driver.ts";

/**
 * A player that came back gets every turn it missed, in order, from the room's window of recent turns
 * (`turns { after }`); a gap older than the window is named by `turnsGone`. The window is bounded by
 * turns and bytes, and only its tail is written.
 */

const catchUp = (player: string, after: number) => ({ type: "turns", player, after });

describe("catching up after a reconnect", () => {
  it("sends the missed turns to the asker only, in order, with the commands they carried", () => {
    const d = startedDirectRoom(["bob"]);
    d.advance(200);
    d.send({ type: "command", player: "alice", data: "dig" });
    d.send({ type: "command", player: "bob", data: "build" });
    const sent = turns(d.advance(300));
    expect(sent.map((t) => t.turn)).toEqual([3, 4, 5]);

    const effects = d.send(catchUp("bob", 2));
    const frames = pushed(effects, "turn");
    expect(frames.every((p) => p.to.length === 1 && p.to[0] === "bob")).toBe(true);
    expect(frames.map((p) => p.frame)).toEqual(sent);
    expect(frames[0]?.frame).toEqual({
      type: "turn",
      turn: 3,
      commands: [
        { side: 0, data: "dig" },
        { side: 1, data: "build" },
      ],
    });
    expect(effects.at(-1)).toEqual({ type: "reply", value: { turn: 5 } });
    expect(pushed(effects, "turnsGone")).toEqual([]);
  });

  it("sends nothing but the answer to a player that holds every turn", () => {
    const d = startedDirectRoom(["bob"]);
    d.advance(300);
    expect(d.send(catchUp("bob", 3))).toEqual([{ type: "reply", value: { turn: 3 } }]);
  });

  it("names the turns older than its window with turnsGone, then sends the ones it holds", () => {
    const d = startedDirectRoom(["bob"]);
    const kept = roomLimits.catchUpTurnsKept;
    d.advance((kept + 50) * 100);
    expect(d.state.lastTurn).toBe(kept + 50);
    expect(d.state.recentTurns).toHaveLength(kept);
    const effects = d.send(catchUp("bob", 10));
    expect(pushed(effects, "turnsGone")).toEqual([
      { to: ["bob"], frame: { type: "turnsGone", from: 11, to: 50 } },
    ]);
    const sent = turns(effects).map((t) => t.turn as number);
    expect(sent).toHaveLength(kept);
    expect(sent[0]).toBe(51);
    expect(sent.at(-1)).toBe(kept + 50);
    expect(effects.findIndex((e) => e.type === "push" && e.frame.type === "turnsGone")).toBe(0);
  });

  it("refuses a player without a seat, a turn not sent yet and a match not started, changing nothing", () => {
    const d = startedDirectRoom(["bob"]);
    d.advance(300);
    expectRefused(d, catchUp("mallory", 0), "NOT_IN_LOBBY");
    expectRefused(d, catchUp("bob", 4), "INVALID");
    const setup = roomDriver({
      code: "QWERTY",
      direct: true,
      host: { id: "alice", name: "A" },
      seats: 2,
      mode: "m",
    });
    expectRefused(setup, catchUp("alice", 0), "NOT_PLAYING");
  });
});

describe("the window of recent turns", () => {
  it("stays within its byte bound while a match relays 10 MB of commands", () => {
    const d = startedDirectRoom(["bob"]);
    const big = "x".repeat(roomLimits.maxCommandSize);
    let relayed = 0;
    while (relayed < 10 * 1024 * 1024) {
      for (const player of ["alice", "bob"])
        for (let i = 0; i < 8; i++) {
          d.send({ type: "command", player, data: big });
          relayed += big.length;
        }
      d.advance(100);
    }
    const bytes = d.state.recentTurns.reduce(
      (sum, t) => sum + t.commands.reduce((s, c) => s + (c.data as string).length, 0),
      0,
    );
    expect(d.state.lastTurn).toBeGreaterThan(150);
    expect(bytes).toBeLessThanOrEqual(roomLimits.catchUpBytesKept);
    expect(bytes).toBeGreaterThan(roomLimits.catchUpBytesKept / 2);
    expect(JSON.stringify(d.state).length).toBeLessThan(roomLimits.catchUpBytesKept * 1.1);
    // The newest turns are the ones kept, without a hole.
    const kept = d.state.recentTurns.map((t) => t.turn);
    expect(kept.at(-1)).toBe(d.state.lastTurn);
    expect(kept).toEqual(kept.map((_, i) => d.state.lastTurn - kept.length + 1 + i));
  });

  it("is kept in memory only: the snapshot holds its last turns", async () => {
    const h = createHarness({ kinds: [{ kind: roomKind() as never }] });
    await h.system.spawn("room/QWERTY", lobbyInit);
    for (let i = 0; i < 40; i++) await h.clock.advance(100);
    await h.system.ask("room/QWERTY", { type: "connection", player: "bob", connected: false });
    const live = h.system.peek("room/QWERTY") as RoomState;
    const stored = h.store.peek("room/QWERTY")?.state as RoomState;
    expect(live.lastTurn).toBe(40);
    expect(live.recentTurns).toHaveLength(40);
    expect(stored.lastTurn).toBe(40);
    expect(stored.recentTurns.map((t) => t.turn)).toEqual(
      Array.from({ length: roomLimits.recentTurnsKept }, (_, i) => 41 - roomLimits.recentTurnsKept + i),
    );
  });
});
