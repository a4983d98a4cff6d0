import { readServerFrame } from "../protocol/codec.ts";
import type { SocketLike } from "./client-types.ts";

/**
 * The round trip to the node at `url` (ms), the best of `samples`, measured on a short-lived socket with
 * `ping` frames sent before any hello — a node answers a few (SPEC §3 ping) — which is then closed.
 * Rejects when the node cannot be reached, closes the probe, or does not answer within `timeoutMs` in all.
 */
export function probeRoundTrip(
  Socket: new (url: string) => SocketLike,
  url: string,
  encode: (frame: object) => Uint8Array | string,
  samples: number,
  timeoutMs: number,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let socket: SocketLike;
    try {
      socket = new Socket(url);
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    socket.binaryType = "arraybuffer";
    let best = Number.POSITIVE_INFINITY;
    let left = samples;
    let sentAt = 0;
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      socket.onopen = null;
      socket.onmessage = null;
      socket.onclose = null;
      socket.close(1000, "probe done");
      if (error) reject(error);
      else resolve(best);
    };
    const timer = setTimeout(() => {
      finish(new Error(`no pong from ${url} in time`));
    }, timeoutMs);
    const send = (): void => {
      sentAt = Date.now();
      socket.send(encode({ type: "ping", t: sentAt }));
    };
    socket.onopen = send;
    socket.onerror = () => undefined;
    socket.onclose = () => {
      finish(new Error(`${url} closed the probe`));
    };
    socket.onmessage = (ev) => {
      const raw = typeof ev.data === "string" ? ev.data : new Uint8Array(ev.data as ArrayBuffer);
      const decoded = readServerFrame(raw);
      if (!decoded.ok || decoded.frame.type !== "pong" || decoded.frame.t !== sentAt) return;
      best = Math.min(best, Date.now() - sentAt);
      if (--left > 0) send();
      else finish();
    };
  });
}
