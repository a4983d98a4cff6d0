import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FoyerClient, type RoomEventFrame } from "../../gateway/client/index.ts";
import { TurnLog, type TurnView } from "../../gateway/client/turn-log.ts";
import { fakeSockets } from "../support/fake-socket.ts";

/** The SDK hands a room's turns on in order, fetches the ones it missed, and answers `turnsWanted`. */

let seq = 0;
const turn = (n: number, key = "room/QWERTY", epoch = 1): TurnView => ({
  type: "turn",
  key,
  epoch,
  seq: ++seq,
  turn: n,
  commands: [{ side: 0, data: `c${n}` }],
});

describe("TurnLog", () => {
  it("hands turns on in order, holds early ones until the gap is filled, and drops repeats", () => {
    const log = new TurnLog();
    expect(log.accept(turn(1)).ready.map((t) => t.turn)).toEqual([1]);
    expect(log.accept(turn(4))).toEqual({ ready: [], gap: true });
    expect(log.accept(turn(3)).ready).toEqual([]);
    expect(log.accept(turn(2)).ready.map((t) => t.turn)).toEqual([2, 3, 4]);
    expect(log.accept(turn(3))).toEqual({ ready: [], gap: false });
    expect(log.delivered).toBe(4);
  });

  it("goes on after turns the room no longer holds, and starts again in a new room", () => {
    const log = new TurnLog();
    log.enter("room/A");
    log.accept(turn(1));
    log.accept(turn(9));
    expect(log.skipTo(8).map((t) => t.turn)).toEqual([9]);
    log.enter("room/B");
    expect(log.delivered).toBe(0);
    expect(log.accept(turn(1)).ready).toHaveLength(1);
  });

  it("keeps the latest turns within its bounds and gives back the run after a turn", () => {
    const log = new TurnLog(5, 1 << 20);
    for (let n = 1; n <= 12; n++) log.accept(turn(n));
    expect(log.after(8).map((t) => t.turn)).toEqual([9, 10, 11, 12]);
    expect(log.after(7).map((t) => t.turn)).toEqual([8, 9, 10, 11, 12]);
    expect(log.after(2)).toEqual([]);
    const small = new TurnLog(100, 110);
    for (let n = 1; n <= 20; n++) small.accept(turn(n));
    expect(small.after(17).map((t) => t.turn)).toEqual([18, 19, 20]);
    expect(small.after(16)).toEqual([]);
  });
});

describe("FoyerClient and a room's turns", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  async function connected(maxFrameBytes?: number) {
    const { Socket, made } = fakeSockets();
    const client = new FoyerClient({
      urls: ["ws://node-1/ws"],
      token: "tok",
      WebSocket: Socket,
      ...(maxFrameBytes === undefined ? {} : { maxFrameBytes }),
    });
    const done = client.connect();
    await vi.advanceTimersByTimeAsync(0);
    const socket = made[0]!;
    socket.accept();
    socket.welcome();
    await done;
    const events: RoomEventFrame[] = [];
    client.on("roomEvent", (e) => events.push(e));
    return { client, socket, events };
  }

  it("asks for the turns it missed and hands every turn on in order", async () => {
    const { socket, events } = await connected();
    socket.deliver(turn(1));
    socket.deliver(turn(4));
    const ask = socket.sent.find((f) => f.type === "roomTurns");
    expect(ask).toMatchObject({ type: "roomTurns", after: 1 });
    socket.deliver(turn(2));
    socket.deliver(turn(3));
    socket.deliver({ type: "result", id: ask!.id, value: { turn: 4 } });
    await vi.advanceTimersByTimeAsync(0);
    expect(events.map((e) => (e.type === "turn" ? e.turn : e.type))).toEqual([1, 2, 3, 4]);
    expect(socket.sent.filter((f) => f.type === "roomTurns")).toHaveLength(1);
  });

  it("says which turns the room lost, then goes on after them", async () => {
    const { socket, events } = await connected();
    socket.deliver(turn(1));
    socket.deliver(turn(700));
    socket.deliver({ type: "turnsGone", key: "room/QWERTY", epoch: 1, seq: ++seq, from: 2, to: 99 });
    for (let n = 100; n <= 700; n++) socket.deliver(turn(n));
    const handed = events.map((e) => (e.type === "turn" ? e.turn : e.type));
    expect(handed.slice(0, 4)).toEqual([1, "turnsGone", 100, 101]);
    expect(handed.at(-1)).toBe(700);
    expect(handed).toHaveLength(603);
  });

  it("answers turnsWanted with the turns it holds, in batches under half the frame limit", async () => {
    const { socket } = await connected(2_000);
    for (let n = 1; n <= 60; n++) socket.deliver(turn(n, "room/QWERTY", 1));
    socket.deliver({ type: "turnsWanted", key: "room/QWERTY", epoch: 2, seq: 1, after: 20 });
    const answers: Record<string, unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      await vi.advanceTimersByTimeAsync(0);
      const next = socket.sent.filter((f) => f.type === "heldTurns").at(answers.length);
      if (!next) break;
      answers.push(next);
      socket.deliver({ type: "result", id: next.id, value: null });
    }
    expect(answers.length).toBeGreaterThan(1);
    const all = answers.flatMap((a) => a.turns as { turn: number }[]).map((t) => t.turn);
    expect(all).toEqual(Array.from({ length: 40 }, (_, i) => 21 + i));
    expect(answers.map((a) => a.after)).toEqual(
      answers.map((_, i) => 20 + answers.slice(0, i).reduce((s, a) => s + (a.turns as []).length, 0)),
    );
    expect(answers.map((a) => a.done)).toEqual(answers.map((_, i) => i === answers.length - 1));
    for (const a of answers) expect(JSON.stringify(a).length).toBeLessThan(1_000);
  });
});
