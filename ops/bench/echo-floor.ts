import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";
import { summarize, timeUntil, type LatencySummary } from "./latency.ts";

/** What the server does with each frame of one connection before it echoes it (`echoFloor`). */
export type BeforeEcho = () => Promise<void>;

/**
 * Raw `ws` round trips of a lobby-sized frame (300 bytes) at the given concurrency: the floor under any
 * lobby op, since an op is at least one frame in and one frame out on the same kind of socket. With
 * `beforeEcho`, the server first awaits what it makes for each connection (one KV write, say).
 */
export async function echoFloor(
  clients: number,
  seconds: number,
  beforeEcho?: (connection: number) => BeforeEcho,
): Promise<LatencySummary> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  let connections = 0;
  server.on("connection", (ws) => {
    const before = beforeEcho?.(connections++);
    ws.on("message", (data, binary) => {
      if (before === undefined) ws.send(data, { binary });
      // A failed write ends the connection, and with it the client's loop (rather than leaving it waiting).
      else
        before().then(
          () => {
            ws.send(data, { binary });
          },
          () => {
            ws.terminate();
          },
        );
    });
  });
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const port = (server.address() as AddressInfo).port;
  const payload = Buffer.alloc(300, 7);
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
      await new Promise((resolve) => ws.once("open", resolve));
      let answered: ((closed: boolean) => void) | undefined;
      ws.on("message", () => answered?.(false));
      ws.once("close", () => answered?.(true));
      const roundTrip = async (): Promise<void> => {
        const closed = new Promise<boolean>((resolve) => (answered = resolve));
        ws.send(payload);
        if (await closed) throw new Error("the echo server closed the connection");
      };
      await timeUntil(deadline, roundTrip, latencies);
      ws.close();
    }),
  );
  await new Promise((resolve) => {
    server.close(resolve);
  });
  return summarize(latencies);
}
