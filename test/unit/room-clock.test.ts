import { describe, expect, it } from "vitest";
import { roomKind } from "../../actors/room/index.ts";
import { createHarness, type Harness } from "../../actors/runtime/harness.ts";
import type { StampedFrame } from "../../actors/runtime/ports.ts";
import { lobbyInit, roomDriver, T0, turns } from "./support/room-driver.ts";

/** The turn clock on the real runtime and a fake clock (SPEC §5, FLEET-PROTOCOL Rooms). */

const KEY = "room/QWERTY";

async function started(more: Record<string, unknown> = {}): Promise<Harness> {
  const h = createHarness({ kinds: [{ kind: roomKind() as never }] });
  expect(await h.system.spawn(KEY, { ...lobbyInit, ...more })).toEqual({
    created: true,
    result: { ok: true },
  });
  return h;
}

const turnsOf = (h: Harness, player: string): StampedFrame[] =>
  h.framesOf(player).filter((f) => f.type === "turn");
const command = (h: Harness, player: string, data: unknown) =>
  h.system.ask(KEY, { type: "command", player, data });
const storedTurn = (h: Harness) => (h.store.peek(KEY)?.state as { lastTurn: number }).lastTurn;

describe("the turn clock", () => {
  it("sends exactly one turn per turnMs, numbered consecutively, to every seated human", async () => {
    const h = await started();
    await h.clock.advance(99);
    expect(turnsOf(h, "alice")).toEqual([]);
    for (let n = 1; n <= 20; n++) {
      await h.clock.advance(n === 1 ? 1 : 100);
      expect(turnsOf(h, "alice").map((f) => f.turn)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    }
    expect(turnsOf(h, "bob")).toEqual(turnsOf(h, "alice"));
    expect(turnsOf(h, "carol")).toEqual(turnsOf(h, "alice"));
    expect(h.framesOf("alice").find((f) => f.type === "turn")).toMatchObject({ turn: 1, commands: [] });
    expect(h.reported).toEqual([]);
  });

  it("honours the room's turnMs", async () => {
    const h = await started({ turnMs: 50 });
    await h.clock.advance(1000);
    expect(turnsOf(h, "alice").map((f) => f.turn)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it("puts every command into the next turn, in arrival order, and answers that turn", async () => {
    const h = await started();
    expect(await command(h, "bob", "b1")).toEqual({ ok: true, value: { turn: 1 } });
    await h.clock.advance(100);
    const [b2, a1, b3] = await Promise.all([
      command(h, "bob", "b2"),
      command(h, "alice", new Uint8Array([1, 2, 3])),
      command(h, "bob", "b3"),
    ]);
    expect([b2, a1, b3]).toEqual([1, 2, 3].map(() => ({ ok: true, value: { turn: 2 } })));
    await h.clock.advance(100);
    const sent = turnsOf(h, "carol");
    expect(sent[0]).toMatchObject({ turn: 1, commands: [{ side: 2, data: "b1" }] });
    expect(sent[1]).toMatchObject({
      turn: 2,
      commands: [
        { side: 2, data: "b2" },
        { side: 1, data: new Uint8Array([1, 2, 3]) },
        { side: 2, data: "b3" },
      ],
    });
  });

  it("never skips or reorders a turn over 100 turns of traffic", async () => {
    const h = await started();
    for (let n = 1; n <= 100; n++) {
      await command(h, n % 2 === 0 ? "alice" : "bob", `c${n}`);
      await h.clock.advance(100);
    }
    const sent = turnsOf(h, "alice");
    expect(sent.map((f) => f.turn)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(sent.map((f) => (f.commands as { data: string }[]).map((c) => c.data))).toEqual(
      Array.from({ length: 100 }, (_, i) => [`c${i + 1}`]),
    );
    const seqs = h.framesOf("alice").map((f) => f.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(turnsOf(h, "bob")).toEqual(sent);
  });
});

describe("turn durability", () => {
  it("volatile (default): turns do not write the store, the snapshot follows within the flush interval", async () => {
    const h = await started();
    const afterCreate = h.store.writes;
    await h.clock.advance(1000);
    expect(turnsOf(h, "alice")).toHaveLength(10);
    expect(h.store.writes).toBe(afterCreate);
    expect(storedTurn(h)).toBe(0);
    await h.clock.advance(2100);
    expect(h.store.writes).toBe(afterCreate + 1);
    expect(storedTurn(h)).toBeGreaterThanOrEqual(29);
    await h.clock.advance(6900);
    expect(turnsOf(h, "alice")).toHaveLength(100);
    expect(h.store.writes - afterCreate).toBeLessThanOrEqual(4);
    expect(storedTurn(h)).toBeGreaterThanOrEqual(100 - 31);
  });

  it("persisted: every turn is written before it is sent", async () => {
    const h = await started({ turnDurability: "persisted" });
    const seen: [number, number][] = [];
    for (let n = 1; n <= 30; n++) {
      const before = h.store.writes;
      await h.clock.advance(100);
      const last = turnsOf(h, "alice").at(-1);
      expect(last?.turn).toBe(n);
      seen.push([h.store.writes - before, storedTurn(h)]);
    }
    expect(seen).toEqual(Array.from({ length: 30 }, (_, i) => [1, i + 1]));
  });

  it("keeps the last turns sent in the state", async () => {
    const h = await started({ turnDurability: "persisted" });
    await command(h, "alice", "x");
    await h.clock.advance(1500);
    const state = h.store.peek(KEY)?.state as { recentTurns: { turn: number }[] };
    expect(state.recentTurns.map((t) => t.turn)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
  });
});

describe("the clock's arithmetic (pure)", () => {
  it("a turn timer that fires late re-bases the clock instead of sending a burst", () => {
    const d = roomDriver(lobbyInit);
    d.ctx.now = T0 + 750;
    const effects = d.send({ type: "timer", name: "turn" });
    expect(turns(effects).map((f) => f.turn)).toEqual([1]);
    expect(d.timerAt).toBe(T0 + 850);
    expect(d.last?.volatile).toBe(true);
    expect(turns(d.advance(100)).map((f) => f.turn)).toEqual([2]);
  });

  it("a timer of another name, or one that fires while the clock is paused, sends nothing", () => {
    const d = roomDriver(lobbyInit);
    const before = d.state;
    expect(d.send({ type: "timer", name: "other" })).toEqual([]);
    d.send({ type: "connection", player: "bob", connected: false });
    expect(d.send({ type: "timer", name: "turn" })).toEqual([]);
    expect(d.state.lastTurn).toBe(before.lastTurn);
  });
});
