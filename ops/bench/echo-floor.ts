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
      if (before === undefined) {
        ws.send(data, { binary });
        return;
      }
      // What went wrong ends the connection with its reason, and the client's loop with it.
      before().then(
        () => {
          ws.send(data, { binary });
        },
        (error: unknown) => {
          // A close reason is at most 123 bytes: printable ASCII, cut short.
          ws.close(
            1011,
            String(error)
              .replace(/[^\x20-\x7e]/g, "?")
              .slice(0, 120),
          );
        },
      );
    });
  });
  try {
    await new Promise<void>((resolve) => server.once("listening", resolve));
    const port = (server.address() as AddressInfo).port;
    const payload = Buffer.alloc(300, 7);
    const latencies: number[] = [];
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
        await new Promise((resolve) => ws.once("open", resolve));
        let answered: ((closedFor: string | null) => void) | undefined;
        ws.on("message", () => answered?.(null));
        ws.once("close", (_code, reason) => answered?.(reason.toString() || "no reason given"));
        const roundTrip = async (): Promise<void> => {
          if (ws.readyState !== WebSocket.OPEN) throw new Error("the echo server closed the connection");
          const closedFor = new Promise<string | null>((resolve) => (answered = resolve));
          ws.send(payload);
          const reason = await closedFor;
          if (reason !== null) throw new Error(`the echo server closed the connection: ${reason}`);
        };
        try {
          await timeUntil(deadline, roundTrip, latencies);
        } finally {
          ws.close();
        }
      }),
    );
    return summarize(latencies);
  } finally {
    await new Promise((resolve) => {
      server.close(resolve);
    });
  }
}
