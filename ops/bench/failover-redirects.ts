import WebSocket from "ws";
import { FoyerClient, type SocketLike } from "../../gateway/client/index.ts";
import { readServerFrame } from "../../gateway/protocol/codec.ts";
import type { FleetClientOptions } from "./fleet-client.ts";

/** Frames longer than this are never a `redirect` (a URL and a reason): not decoded, to spare the bench. */
const redirectFrameMaxBytes = 512;

/**
 * A `ws` socket that calls `redirected` for every `redirect` frame it receives, before the SDK follows
 * it: how often a member was sent somewhere (a dead node, say) on its way back after a failover.
 */
export function redirectCountingSocket(redirected: () => void): new (url: string) => SocketLike {
  class Counting extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on("message", (data: Buffer, isBinary: boolean) => {
        if (data.length > redirectFrameMaxBytes) return;
        const frame = readServerFrame(isBinary ? new Uint8Array(data) : data.toString("utf8"));
        if (frame.ok && frame.frame.type === "redirect") redirected();
      });
    }
  }
  return Counting as unknown as new (url: string) => SocketLike;
}

/**
 * A fleet client as `connectFleetClient` makes it (reconnects within 50–500 ms, kept in `clients`),
 * whose sockets report each `redirect` frame to `redirected`.
 */
export async function connectCountingClient(
  clients: FoyerClient[],
  options: FleetClientOptions,
  redirected: () => void,
): Promise<FoyerClient> {
  const client = new FoyerClient({
    ...options,
    reconnectMinMs: 50,
    reconnectMaxMs: 500,
    WebSocket: redirectCountingSocket(redirected),
  });
  clients.push(client);
  await client.connect();
  return client;
}

/** How many `redirect` frames members received from the kill until they were back: p50, p99, max. */
export interface RedirectFigures {
  readonly members: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly total: number;
}

/** The figures of one count per member. */
export function redirectFigures(counts: readonly number[]): RedirectFigures {
  const sorted = [...counts].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const total = sorted.reduce((sum, n) => sum + n, 0);
  return { members: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0, total };
}
