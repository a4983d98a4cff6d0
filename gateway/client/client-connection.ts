import type { RequestFrame } from "../protocol/client-frames.ts";
import { FoyerError } from "../protocol/foyer-error.ts";
import type { ServerFrame } from "../protocol/server-frames.ts";
import { ClientSockets } from "./client-sockets.ts";
import type { RequestBody } from "./client-types.ts";
import { ConnectWaiters } from "./connect-waiters.ts";
import { PendingCalls } from "./pending-calls.ts";
import { probeRoundTrip } from "./region-probe.ts";
import { RoundTrips } from "./round-trips.ts";

const OPEN = 1;

type WelcomeFrame = Extract<ServerFrame, { type: "welcome" }>;
/** The frames about the connection itself (`ClientConnection.dispatch`). */
type ConnectionFrame = Extract<
  ServerFrame,
  { type: "welcome" | "result" | "error" | "redirect" | "moved" | "pong" }
>;
/** Every other server frame: news the client's state follows. */
export type PushFrame = Exclude<ServerFrame, ConnectionFrame>;

const connectionFrameTypes: ReadonlySet<string> = new Set<ConnectionFrame["type"]>([
  "welcome",
  "result",
  "error",
  "redirect",
  "moved",
  "pong",
]);

function isConnectionFrame(frame: ServerFrame): frame is ConnectionFrame {
  return connectionFrameTypes.has(frame.type);
}

/**
 * The SDK's calls over its sockets: every call gets a request id; unanswered calls are re-sent with the
 * same id after each welcome (the node applies them once), and retryable refusals are retried until the
 * call's deadline. Every frame that is not about the connection is a push, for `ClientCore`.
 */
export abstract class ClientConnection extends ClientSockets {
  /** The player's id, once connected. */
  player: string | null = null;
  /** The connected node's region (its `--region`, from `welcome`), or null when it has none. */
  region: string | null = null;
  /** One node URL per region of the fleet (from `welcome`); empty when the node lists none. */
  regions: readonly { readonly region: string; readonly url: string }[] = [];
  /** The URL of the node this client is connected to (welcomed), or null. */
  url: string | null = null;
  /** The last welcome said the node reads a request's `ack` (older nodes refuse a request that has one). */
  private acks = false;
  private nextId = 1;
  private readonly pending = new PendingCalls((frame) => this.transmit(frame));
  private readonly waiters = new ConnectWaiters();
  private readonly roundTrips = new RoundTrips();
  /**
   * Opens the connection; resolves after the welcome, or rejects with UNAVAILABLE after
   * `connectTimeoutMs` (the client keeps trying until `close()`), or with the final error of a refused
   * hello (UNAUTHORIZED).
   */
  connect(): Promise<void> {
    this.closedByUser = false;
    if (this.welcomed && this.socket) return Promise.resolve();
    const done = this.waiters.wait(this.connectTimeoutMs);
    this.open();
    return done;
  }

  /** Sends a request and waits for its answer, retrying retryable refusals until the deadline. */
  call(body: RequestBody, timeoutMs = this.options.callTimeoutMs ?? 10_000): Promise<unknown> {
    const id = this.nextId++;
    // Every id below the oldest unsettled (or held) call is done: the node may forget their results.
    const ack = this.pending.settledThrough(id);
    return this.pending.add(ack > 0 ? { ...body, id, ack } : { ...body, id }, timeoutMs);
  }

  /**
   * One round trip to the connected node (ms), with a `ping` frame and its `pong`. Rejects when not
   * connected, or after `timeoutMs` without an answer.
   */
  measurePing(timeoutMs = 5_000): Promise<number> {
    const socket = this.socket;
    if (!this.welcomed || socket?.readyState !== OPEN) return Promise.reject(new Error("not connected"));
    return this.roundTrips.measure((t) => {
      socket.send(this.encode({ type: "ping", t }));
    }, timeoutMs);
  }

  /**
   * The round trip to the node at `url` (ms), the best of `samples`, measured on a short-lived socket
   * with pings before any hello (the node answers a few; SPEC §3 ping), which is then closed. Rejects
   * when the node cannot be reached or does not answer within `timeoutMs` in all.
   */
  probeRoundTrip(url: string, samples = 3, timeoutMs = 5_000): Promise<number> {
    return probeRoundTrip(this.Socket, url, (frame) => this.encode(frame), samples, timeoutMs);
  }

  /**
   * Moves this connection to the node at `url` now (as a `redirect` would), unless it is already there;
   * resolves once welcomed there. Calls made meanwhile are sent after the welcome.
   */
  protected moveTo(url: string): Promise<void> {
    if (this.url === url && this.welcomed) return Promise.resolve();
    const done = this.waiters.wait(this.connectTimeoutMs);
    this.follow(url);
    return done;
  }

  /** Drops the socket without saying goodbye, as a network failure would; the client reconnects by itself. */
  dropConnection(): void {
    this.socket?.close(4999, "dropped by test");
  }

  /** Sends a request on the welcomed socket; false when there is none (the frame goes with the next welcome). */
  private transmit(frame: RequestFrame): boolean {
    if (!this.welcomed || this.socket?.readyState !== OPEN) return false;
    // A node of an older release refuses a request with an `ack` (a rolling deploy): it hears none.
    if (frame.ack !== undefined && !this.acks) {
      const { ack: _ack, ...rest } = frame;
      this.socket.send(this.encode(rest));
      return true;
    }
    this.socket.send(this.encode(frame));
    return true;
  }

  protected callDeadline(): number | undefined {
    return this.pending.firstDeadline();
  }

  protected endForGood(error: FoyerError, code: number, reason: string): void {
    this.waiters.fail(error);
    this.pending.failAll(error);
    this.emit("closed", { code, reason });
  }

  /** A frame of the current socket: the connection's own here, every other one a push (`onPush`). */
  protected dispatch(frame: ServerFrame): void {
    if (!isConnectionFrame(frame)) {
      this.onPush(frame);
      return;
    }
    switch (frame.type) {
      case "welcome":
        this.onWelcome(frame);
        return;
      case "result":
        this.pending.settle(frame.id, { value: frame.value });
        return;
      case "error":
        this.pending.refused(frame);
        return;
      case "redirect":
        this.follow(frame.url);
        return;
      case "moved":
        if (this.standby?.url !== frame.url) this.emit("moving", { key: frame.key, url: frame.url });
        this.moveOver(frame.url);
        return;
      case "pong":
        this.roundTrips.answered(frame.t);
        return;
    }
  }

  private onWelcome(frame: WelcomeFrame): void {
    clearTimeout(this.attemptTimer);
    if (this.socket) this.watchLiveness(this.socket);
    this.welcomed = true;
    this.attempts = 0;
    this.resume = frame.resume;
    this.lobbyHint = frame.lobbyHint === true;
    this.acks = frame.acks === true;
    this.hinted = false;
    this.player = frame.player.id;
    this.region = frame.region ?? null;
    this.regions = frame.regions ?? [];
    this.url = this.socketUrl;
    // Re-send before anyone hears of the welcome, so a call made in a listener is not sent twice.
    this.pending.resendAll();
    this.onWelcomed();
    this.waiters.succeed();
    this.emit("connected", { resumed: frame.resumed, node: frame.node });
  }

  /** A frame the client's state follows: a lobby's, a room's, matchmaking's, a document's. */
  protected abstract onPush(frame: PushFrame): void;

  /** Called on every welcome, after unanswered calls were re-sent and before anyone hears of it. */
  protected abstract onWelcomed(): void;
}
