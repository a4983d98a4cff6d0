/**
 * How long the node may stay silent before the client leaves it, by default (`livenessMs`). The client
 * pings 10 s before that, past 35 s: later than two of the node's heartbeats (15 s each by default; a
 * socket that spoke since the last one is not pinged, so an idle one is pinged every 30 s), so an idle
 * client in Node never pings a healthy node. docs/operations.md says what it trades.
 */
export const defaultLivenessMs = 45_000;

/**
 * How long the node gets to answer the client's liveness ping: half of `livenessMs`, at most 10 s. With
 * the default the client pings past 35 s of silence, later than the node's heartbeat comes.
 */
export function pingMarginMs(livenessMs: number): number {
  return Math.min(livenessMs / 2, 10_000);
}

/** What a watch does with the socket it watches. */
export interface WatchedSocket {
  /** Still the client's socket: a watch of one that was replaced ends. */
  readonly current: () => boolean;
  /** Pings the node (a WebSocket ping, or a `ping` frame), at `now`. */
  readonly ping: (now: number) => void;
  /** The node was silent for all of `livenessMs`: the socket is given up. */
  readonly silent: () => void;
}

/**
 * While welcomed: a ping once the node has been silent for `livenessMs` less the time it gets to answer
 * (`pingMarginMs`), a drop past all of it. On a socket that can (`ws` in Node) the ping is a WebSocket
 * ping, answered by the node's WebSocket library without a Foyer frame to decode, and the node's own
 * heartbeat pings count as hearing it, so an idle client in Node pings only a node whose heartbeat is
 * late. A browser's socket can do neither: it sends a `ping` frame. One timer per client, armed for
 * the next moment something is due.
 */
export class LivenessWatch {
  /** When the node was last heard from (wall ms). */
  lastHeardAt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly livenessMs: number) {}

  /** Something came from the node. */
  heard(): void {
    this.lastHeardAt = Date.now();
  }

  /** Stops watching. */
  stop(): void {
    clearTimeout(this.timer);
  }

  /** Watches a socket just welcomed (ending the watch of any other). */
  watch(socket: WatchedSocket): void {
    clearTimeout(this.timer);
    const livenessMs = this.livenessMs;
    if (livenessMs <= 0) return;
    const pingAfterMs = livenessMs - pingMarginMs(livenessMs);
    this.lastHeardAt = Date.now();
    let pingedAt = -1;
    const check = (): void => {
      if (!socket.current()) return;
      const now = Date.now();
      const silentMs = now - this.lastHeardAt;
      if (silentMs >= livenessMs) {
        socket.silent();
        return;
      }
      // One ping per silence: none while one is out. Its answer may come in the same millisecond.
      if (silentMs >= pingAfterMs && pingedAt <= this.lastHeardAt) {
        pingedAt = now;
        socket.ping(now);
      }
      const dueMs = silentMs >= pingAfterMs ? livenessMs : pingAfterMs;
      this.timer = setTimeout(check, dueMs - silentMs);
    };
    this.timer = setTimeout(check, pingAfterMs);
  }
}
