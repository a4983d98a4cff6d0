import type { AddressInfo } from "node:net";
import WebSocket, { WebSocketServer } from "ws";
import { summarize, timeUntil, type LatencySummary } from "./latency.ts";

/**
 * Raw `ws` round trips of a lobby-sized frame (300 bytes) at the given concurrency: the floor under any
 * lobby op, since an op is at least one frame in and one frame out on the same kind of socket.
 */
export async function echoFloor(clients: number, seconds: number): Promise<LatencySummary> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  server.on("connection", (ws) =>
    ws.on("message", (data, binary) => {
      ws.send(data, { binary });
    }),
  );
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const port = (server.address() as AddressInfo).port;
  const payload = Buffer.alloc(300, 7);
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
      await new Promise((resolve) => ws.once("open", resolve));
      const roundTrip = async (): Promise<void> => {
        ws.send(payload);
        await new Promise((resolve) => ws.once("message", resolve));
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
