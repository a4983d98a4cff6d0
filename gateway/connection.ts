import WebSocket from "ws";
import { playerKey } from "../actors/common/index.ts";
import type { AskResult, ErrorCode } from "../actors/runtime/index.ts";
import { isTemporaryRefusal, verifyPlayerToken } from "./auth/index.ts";
import type { ConnectionDeps } from "./connection-deps.ts";
import type { RequestFrame } from "./protocol/client-frames.ts";
import type { CloseReason } from "./protocol/close-codes.ts";
import { decodeClientFrame, encodeFrame, requestIdOf, type Encoding } from "./protocol/codec.ts";
import { answerFrame, closeFor, countsAsRefusal, errorFrame } from "./protocol/error-mapping.ts";
import { MIN_PROTOCOL_VERSION, PROTOCOL_VERSION } from "./protocol/server-frames.ts";
import { RateLimiter } from "./rate-limiter.ts";
import { locateMatch } from "./match-reconnect.ts";
import { bindSession, locateLobby } from "./session-binding.ts";
import { disconnected, heldOnClose, type Session, type SessionSocket } from "./sessions/index.ts";
import { type SlowReader, SocketSender } from "./socket-sender.ts";
import type { GatewaySocket, SocketEvents } from "./gateway-socket.ts";

/** Pings a socket may send before its hello (a region probe measures a few round trips, then closes). */
const maxProbePings = 16;

export type { ConnectionDeps, ConnectionLimits } from "./connection-deps.ts";

/**
 * One WebSocket: `hello` first, then request frames. Every frame is size-checked, rate-limited and
 * validated; a bad one gets an error frame and the connection stays open; a flood, an oversized frame or
 * a reader that cannot keep up closes it with a code that says why.
 */
export class Connection implements SessionSocket, SocketEvents, SlowReader {
  encoding: Encoding = "msgpack";
  private session: Session | undefined;
  private closed = false;
  /** Pings answered before the hello (a region probe). */
  private probes = 0;
  /** A ping is out and its pong has not come back yet. */
  private awaitingPong = false;
  /** Something came from the peer since the last heartbeat: a frame, a ping, or the pong to ours. */
  private heard = false;
  private readonly out: SocketSender;
  private readonly limiter: RateLimiter;
  /** Until the hello is through: then dropped, so a seated socket does not keep a spent timer. */
  private helloTimer: NodeJS.Timeout | undefined;
  /** The hello whose token is being checked: frames that arrive meanwhile wait for it, in order. */
  private hello: Promise<void> | undefined;

  constructor(
    private readonly ws: GatewaySocket,
    private readonly deps: ConnectionDeps,
    /** Told once the socket has closed, after the connection itself (the server's count of sockets). */
    private readonly gone?: (connection: Connection) => void,
  ) {
    this.out = new SocketSender(ws, deps.limits.maxBufferedBytes, this);
    this.limiter = new RateLimiter(deps.limits.ratePerSecond, deps.limits.rateBurst, deps.now);
    this.helloTimer = setTimeout(() => {
      this.closeWith("HELLO_TIMEOUT");
    }, deps.limits.helloTimeoutMs);
    ws.events = this;
  }

  /** The socket's `message` event. */
  socketMessage(data: WebSocket.RawData, isBinary: boolean): void {
    this.onMessage(toBytes(data), isBinary);
  }

  /** The socket's `ping` event. */
  socketPing(): void {
    // `ws` has answered it already; a client's ping is proof of life as good as a pong. Each takes a
    // token as a frame does, so a flood of pings (each answered with a write) is closed like one.
    this.heard = true;
    if (!this.closed && this.limiter.take() === "close") this.closeWith("RATE_LIMITED");
  }

  /** The socket's `pong` event. */
  socketPong(): void {
    // An unsolicited pong (RFC 6455 allows them) is not counted: the node must keep sending to a peer
    // that only sends those, or a proxy between them would close the socket as idle.
    if (!this.awaitingPong) return;
    this.awaitingPong = false;
    this.heard = true;
  }

  /** The socket's `close` event. */
  socketClosed(): void {
    this.onClose();
    this.gone?.(this);
  }

  /** The socket's `error` event. */
  socketError(error: Error): void {
    this.deps.logger.debug({ err: error }, "socket error");
  }

  /** The sender found more unsent bytes than the reader may keep waiting. */
  tooSlow(): void {
    this.closeWith("SLOW_CONSUMER");
  }

  send(data: Uint8Array | string): void {
    if (!this.closed) this.out.send(data);
  }

  /** Resolves once the socket has closed (at once if it already has). */
  whenClosed(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once("close", () => {
        resolve();
      });
    });
  }

  bufferedBytes(): number {
    return this.ws.bufferedAmount;
  }

  /**
   * One heartbeat, called every `heartbeatMs` by the server. A socket heard from since the previous one
   * (a frame, a ping, a pong) is alive and is not pinged: a client that pings the node itself (the SDK in
   * a browser) is not pinged as well, and a socket that answered a ping is skipped at the next
   * heartbeat, so an idle socket costs a ping every two heartbeats. A silent one is pinged; one
   * that has not answered that ping by the next heartbeat is gone (a peer that vanished without a FIN
   * would otherwise hold its seat forever), so it is dropped — a disconnect like any other, and the
   * member's grace starts. A peer that vanishes is thus dropped two to three heartbeats after it last
   * spoke.
   */
  heartbeat(): void {
    if (this.closed) return;
    if (this.heard) {
      this.heard = false;
      this.awaitingPong = false;
      return;
    }
    if (this.awaitingPong) {
      this.closed = true;
      this.deps.onRefused?.("close:HEARTBEAT");
      this.ws.terminate();
      return;
    }
    this.awaitingPong = true;
    this.ws.ping();
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    // A socket already closing (its peer's close frame came, answered by `ws`, which ends the TCP stream
    // itself) needs nothing more: closing it again makes `ws` end a finished stream, an error Node builds
    // with its stack and drops. A player's new socket replacing one its client has just closed is a cold
    // join's usual case.
    if (this.ws.readyState === WebSocket.CLOSING || this.ws.readyState === WebSocket.CLOSED) return;
    this.ws.close(code, reason);
    // A reader that stopped reading never lets the close frame out: do not wait for it forever.
    setTimeout(() => {
      this.ws.terminate();
    }, 2_000).unref();
  }

  /** Drops the socket at once, without a close handshake (a shutdown's last resort). */
  terminate(): void {
    this.closed = true;
    this.ws.terminate();
  }

  private closeWith(reason: CloseReason): void {
    if (this.closed) return;
    this.deps.onRefused?.(`close:${reason}`);
    closeFor(this, reason);
  }

  private reply(frame: object): void {
    this.send(encodeFrame(frame, this.encoding));
  }

  /** Answers with an error frame (counted as a refusal unless it says "try again later"). */
  private refuse(code: ErrorCode, message: string, id?: number, retryAfterMs?: number): void {
    if (countsAsRefusal(code)) this.deps.onRefused?.(code);
    this.reply(errorFrame(code, message, id, retryAfterMs));
  }

  private onMessage(bytes: Uint8Array, isBinary: boolean): void {
    if (this.closed) return;
    this.heard = true;
    if (bytes.byteLength > this.deps.limits.maxFrameBytes) {
      this.closeWith("TOO_LARGE");
      return;
    }
    const data = isBinary ? bytes : Buffer.from(bytes).toString("utf8");
    if (this.hello) {
      // Behind a hello whose token is still being checked: handled after it (and counted against the rate).
      if (this.limiter.take() === "close") {
        this.closeWith("RATE_LIMITED");
        return;
      }
      void this.hello.then(() => {
        this.onMessage(bytes, isBinary);
      });
      return;
    }
    if (!this.session) {
      this.encoding = isBinary ? "msgpack" : "json";
      this.hello = this.onHello(data)
        .catch((error: unknown) => {
          this.deps.logger.error({ err: error }, "hello failed");
          this.terminate();
        })
        .finally(() => (this.hello = undefined));
      return;
    }
    const admitted = this.limiter.take();
    if (admitted === "close") {
      this.closeWith("RATE_LIMITED");
      return;
    }
    if (admitted === "refuse") {
      this.refuse("RATE_LIMITED", "slow down", requestIdOf(data), this.limiter.retryAfterMs());
      return;
    }
    const decoded = decodeClientFrame(data);
    if (!decoded.ok) {
      this.refuse("INVALID", decoded.message, requestIdOf(data));
      return;
    }
    const frame = decoded.frame;
    if (frame.type === "hello") {
      this.refuse("INVALID", "hello was already sent");
    } else if (frame.type === "ping") {
      this.reply({ type: "pong", t: frame.t, now: this.deps.now() });
    } else {
      void this.onRequest(this.session, frame);
    }
  }

  private async onRequest(session: Session, frame: RequestFrame): Promise<void> {
    const arrived = performance.now();
    let result: AskResult;
    try {
      result = await this.deps.requests.handle(session, frame);
    } catch (error) {
      this.deps.logger.error({ err: error, frame: frame.type }, "request failed");
      result = { ok: false, code: "INTERNAL", message: "the request failed" };
    }
    this.deps.onAnswered?.(frame.type, result.ok ? "ok" : result.code, (performance.now() - arrived) / 1000);
    if (!result.ok && countsAsRefusal(result.code)) this.deps.onRefused?.(result.code);
    // A password guess costs more than a frame (rate-limiter.ts, `penalize`).
    if (!result.ok && result.code === "WRONG_PASSWORD") this.limiter.penalize(this.deps.limits.rateBurst / 4);
    // The socket may have been replaced by a resume meanwhile: answer on the session's current socket.
    session.send(answerFrame(frame.id, result));
  }

  private async onHello(data: Uint8Array | string): Promise<void> {
    const decoded = decodeClientFrame(data);
    // A region probe (SPEC §3 ping): the SDK measures a node it is not connected to with pings before any
    // hello, then closes. A few are answered; the hello timeout still ends a socket that never says hello.
    if (decoded.ok && decoded.frame.type === "ping" && this.probes < maxProbePings) {
      this.probes++;
      this.reply({ type: "pong", t: decoded.frame.t, now: this.deps.now() });
      return;
    }
    if (!decoded.ok || decoded.frame.type !== "hello") {
      this.closeWith("PROTOCOL");
      return;
    }
    const hello = decoded.frame;
    if (hello.protocol < MIN_PROTOCOL_VERSION || hello.protocol > (this.deps.protocol ?? PROTOCOL_VERSION)) {
      this.closeWith("PROTOCOL");
      return;
    }
    const verified = await verifyPlayerToken(
      hello.token,
      this.deps.tokenVerifier ?? this.deps.tokenKeys,
      this.deps.now(),
    );
    if (this.closed) return;
    if (!verified.ok) {
      this.deps.logger.info({ why: verified.why }, "token refused");
      // Keys the node could not fetch yet say nothing about the token: the client tries again later.
      const temporary = isTemporaryRefusal(verified.why);
      this.refuse(temporary ? "UNAVAILABLE" : "UNAUTHORIZED", `token refused: ${verified.why}`);
      this.closeWith(temporary ? "KEYS_UNAVAILABLE" : "UNAUTHORIZED");
      return;
    }
    clearTimeout(this.helloTimer);
    this.helloTimer = undefined;
    const { session, welcome } = bindSession(this, hello, verified.claims, this.deps);
    this.session = session;
    this.reply(welcome);
    // The lobby and the match lookups both start from the player's record: one ask serves both.
    const record = this.deps.system.ask(playerKey(session.player), { type: "get" });
    session.located = locateLobby(
      this.deps.system,
      session,
      this,
      {
        ownerOf: (key) => this.deps.requests.ownerOf(key),
        waitForOwner: (key, maxMs) => this.deps.requests.waitForOwner(key, maxMs),
        now: this.deps.now,
      },
      welcome.resumed ? hello.lobby : undefined,
      record,
    );
    // A player back while its queue match runs is told where (SPEC §4); requests need not wait for it.
    locateMatch(this.deps.system, session, this, record).catch((error: unknown) => {
      this.deps.logger.warn({ error: String(error) }, "match reconnect lookup failed");
    });
  }

  private onClose(): void {
    this.closed = true;
    clearTimeout(this.helloTimer);
    const session = this.session;
    if (session?.socket !== this) return;
    session.socket = null;
    session.detachedAt = this.deps.now();
    if (this.deps.stopping()) return;
    // The player keeps its place for the lobby's grace (private and activity lobbies alike); its room
    // pauses the clock while it is missing (docs/rooms.md).
    for (const key of [session.lobby, session.activity, session.room]) {
      if (key && session.handedOff?.includes(key) !== true) {
        this.deps.system.tell(key, disconnected(session));
      }
    }
    // A disconnect dropped while a join here was in flight, for a key the session did not enter.
    heldOnClose(session, this.deps.system);
  }
}

function toBytes(data: WebSocket.RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}
