import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { CloseCodes } from "../../gateway/protocol/close-codes.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { eventually, rawJoin, rawSocket, startTestNode, waitFrame, type RawSocket } from "../support/node.ts";

let node: RunningNode | undefined;

afterEach(async () => {
  await node?.stop();
  node = undefined;
});

const unlimited = { ratePerSecond: "1000000", rateBurst: "1000000" };

/** Creates a lobby from a raw socket; returns its code. */
async function create(raw: RawSocket, metadata: Record<string, string>): Promise<string> {
  raw.ws.send(encodeFrame({ type: "create", id: 1, public: true, metadata }, "msgpack"));
  const created = await waitFrame<{ value: { code: string } }>(raw.frames, (f) => f.type === "result");
  return created.value.code;
}

/** Sends `count` ready frames, alternating true and false so each one changes the lobby and is pushed. */
function sendReadies(raw: RawSocket, firstId: number, count: number): void {
  for (let id = firstId; id < firstId + count; id++)
    raw.ws.send(encodeFrame({ type: "ready", id, ready: id % 2 === 0 }, "msgpack"));
}

/** Proves a socket is open and served: a ping is answered. */
async function stillServed(raw: RawSocket, t: number): Promise<void> {
  expect(raw.ws.readyState).toBe(WebSocket.OPEN);
  raw.ws.send(encodeFrame({ type: "ping", t }, "msgpack"));
  await waitFrame(raw.frames, (f) => f.type === "pong" && f.t === t);
}

describe("the bound on a socket's unsent bytes", () => {
  it("closes a reader that stops reading with SLOW_CONSUMER, and only that reader", async () => {
    node = await startTestNode({ maxBufferedBytes: "65536", ...unlimited });
    const host = await rawSocket(node, { player: "h" });
    // Large lobby frames (64-character metadata) fill the slow reader's buffers quickly.
    const code = await create(
      host,
      Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`field${i}`, "m".repeat(64)])),
    );
    const slow = await rawSocket(node, { player: "slow" });
    await rawJoin(slow, code);
    // Stop reading: the node's pushes pile up in the kernel buffers, then in the socket's send queue.
    const socket = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    socket.pause();
    const refusals = node.refusals;
    let id = 2;
    for (let round = 0; round < 400 && !refusals.has("close:SLOW_CONSUMER"); round++) {
      sendReadies(host, id, 100);
      id += 100;
      // Wait for this round's answers: the host reads promptly, so only the slow reader falls behind.
      const last = id - 1;
      await waitFrame(host.frames, (f) => f.id === last);
    }
    await eventually(() => expect(refusals.get("close:SLOW_CONSUMER")).toBe(1), 10_000);
    // The node has given up on it; once the client reads again it finds the close frame behind its backlog.
    socket.resume();
    expect((await slow.closed).code).toBe(CloseCodes.SLOW_CONSUMER.code);
    // The host received every one of those frames too, and read them as they came: it stays.
    await stillServed(host, 1);
    expect(refusals.get("close:SLOW_CONSUMER")).toBe(1);
    host.ws.close();
  });

  it("does not close a prompt reader for a burst that is larger than the bound in one turn", async () => {
    node = await startTestNode({ maxBufferedBytes: "4096", ...unlimited });
    const host = await rawSocket(node, { player: "h" });
    const code = await create(host, { mode: "duo", map: "m".repeat(200) });
    const guest = await rawSocket(node, { player: "g" });
    await rawJoin(guest, code);
    // 100 changes in one write: the node answers them in a few batches of lobby frames, each batch far
    // over 4 KiB in one turn of the event loop, all of which a prompt reader takes at once.
    sendReadies(host, 2, 100);
    await eventually(() => {
      const answered = host.frames.filter((f) => (f as { type: string }).type === "result");
      expect(answered).toHaveLength(101);
      // The guest's join, then one frame per change.
      const pushed = guest.frames.filter((f) => (f as { type: string }).type === "lobby");
      expect(pushed).toHaveLength(101);
    });
    expect(node.refusals.has("close:SLOW_CONSUMER")).toBe(false);
    await stillServed(host, 1);
    await stillServed(guest, 2);
    host.ws.close();
    guest.ws.close();
  });
});
