import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import type WebSocket from "ws";
import type { ActorSystem, AskResult } from "../actors/runtime/index.ts";
import { signResumeToken, verifyResumeToken } from "./auth/resume-token.ts";
import { verifyPlayerToken, type TokenKey } from "./auth/player-token.ts";
import type { HelloFrame, RequestFrame } from "./protocol/client-frames.ts";
import { CloseCodes, type CloseReason } from "./protocol/close-codes.ts";
import { decodeClientFrame, encodeFrame, requestIdOf, type Encoding } from "./protocol/codec.ts";
import { MIN_PROTOCOL_VERSION, PROTOCOL_VERSION } from "./protocol/server-frames.ts";
import type { LobbyRequests } from "./lobby-requests.ts";
import { RateLimiter } from "./rate-limiter.ts";
import { Session, type SessionRegistry, type SessionSocket } from "./session-registry.ts";

/** The limits and secrets a connection is held to. */
export interface ConnectionLimits {
  readonly maxFrameBytes: number;
  readonly maxBufferedBytes: number;
  readonly ratePerSecond: number;
  readonly rateBurst: number;
  readonly helloTimeoutMs: number;
}

/** What every connection of a gateway shares. */
export interface ConnectionDeps {
  readonly nodeId: string;
  readonly system: ActorSystem;
  readonly requests: LobbyRequests;
  readonly sessions: SessionRegistry;
  readonly tokenKeys: readonly TokenKey[];
  readonly sessionSecret: string;
  readonly limits: ConnectionLimits;
  readonly logger: Logger;
  readonly now: () => number;
  /** True while the node shuts down: sockets it closes cost nobody a seat. */
  readonly stopping: () => boolean;
  /** Called once per refused frame (by error code) and per socket the node closes (by close reason). */
  readonly onRefused?: (code: string) => void;
}

/**
 * One WebSocket: `hello` first, then request frames. Every frame is size-checked, rate-limited and
 * validated; a bad one gets an error frame and the connection stays open; a flood, an oversized frame or
 * a reader that cannot keep up closes it with a code that says why.
 */
export class Connection implements SessionSocket {
  encoding: Encoding = "msgpack";
  private session: Session | undefined;
  private closed = false;
  private corked = false;
  private readonly limiter: RateLimiter;
  private readonly helloTimer: NodeJS.Timeout;

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: ConnectionDeps,
  ) {
    this.limiter = new RateLimiter(deps.limits.ratePerSecond, deps.limits.rateBurst, deps.now);
    this.helloTimer = setTimeout(() => {
      this.closeWith("HELLO_TIMEOUT");
    }, deps.limits.helloTimeoutMs);
    ws.on("message", (data, isBinary) => {
      this.onMessage(toBytes(data), isBinary);
    });
    ws.on("close", () => {
      this.onClose();
    });
    ws.on("error", (error) => {
      deps.logger.debug({ err: error }, "socket error");
    });
  }

  send(data: Uint8Array | string): void {
    if (this.closed) return;
    this.cork();
    this.ws.send(data);
    if (this.ws.bufferedAmount > this.deps.limits.maxBufferedBytes) this.closeWith("SLOW_CONSUMER");
  }

  /**
   * Frames sent in one turn of the event loop (a push, then the result it answered) leave in one write:
   * the socket is corked at the first and uncorked after the turn's promise continuations have run.
   */
  private cork(): void {
    if (this.corked) return;
    const socket = (this.ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket;
    if (!socket) return;
    this.corked = true;
    socket.cork();
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.close(code, reason);
    // A reader that stopped reading never lets the close frame out: do not wait for it forever.
    setTimeout(() => {
      this.ws.terminate();
    }, 2_000).unref();
  }

  private closeWith(reason: CloseReason): void {
    if (this.closed) return;
    this.deps.onRefused?.(`close:${reason}`);
    this.close(CloseCodes[reason].code, reason);
  }

  private reply(frame: object): void {
    this.send(encodeFrame(frame, this.encoding));
  }

  private refuse(
    code: "INVALID" | "TOO_LARGE" | "RATE_LIMITED" | "UNAUTHORIZED",
    message: string,
    id?: number,
  ): void {
    this.deps.onRefused?.(code);
    this.reply({ type: "error", ...(id === undefined ? {} : { id }), code, message });
  }

  private onMessage(bytes: Uint8Array, isBinary: boolean): void {
    if (this.closed) return;
    if (bytes.byteLength > this.deps.limits.maxFrameBytes) {
      this.closeWith("TOO_LARGE");
      return;
    }
    const data = isBinary ? bytes : Buffer.from(bytes).toString("utf8");
    if (!this.session) {
      this.encoding = isBinary ? "msgpack" : "json";
      this.onHello(data);
      return;
    }
    const admitted = this.limiter.take();
    if (admitted === "close") {
      this.closeWith("RATE_LIMITED");
      return;
    }
    if (admitted === "refuse") {
      this.deps.onRefused?.("RATE_LIMITED");
      this.reply({
        type: "error",
        ...idField(requestIdOf(data)),
        code: "RATE_LIMITED",
        message: "slow down",
        retryAfterMs: this.limiter.retryAfterMs(),
      });
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
    let result: AskResult;
    try {
      result = await this.deps.requests.handle(session, frame);
    } catch (error) {
      this.deps.logger.error({ err: error, frame: frame.type }, "request failed");
      result = { ok: false, code: "INTERNAL", message: "the request failed" };
    }
    // The socket may have been replaced by a resume meanwhile: answer on the session's current socket.
    if (result.ok) session.send({ type: "result", id: frame.id, value: result.value ?? null });
    else {
      if (result.code !== "UNAVAILABLE") this.deps.onRefused?.(result.code);
      session.send({
        type: "error",
        id: frame.id,
        code: result.code,
        message: result.message,
        ...(result.retryAfterMs === undefined ? {} : { retryAfterMs: result.retryAfterMs }),
      });
    }
  }

  private onHello(data: Uint8Array | string): void {
    const decoded = decodeClientFrame(data);
    if (!decoded.ok || decoded.frame.type !== "hello") {
      this.closeWith("PROTOCOL");
      return;
    }
    const hello = decoded.frame;
    if (hello.protocol < MIN_PROTOCOL_VERSION || hello.protocol > PROTOCOL_VERSION) {
      this.closeWith("PROTOCOL");
      return;
    }
    const verified = verifyPlayerToken(hello.token, this.deps.tokenKeys, this.deps.now());
    if (!verified.ok) {
      this.deps.onRefused?.("UNAUTHORIZED");
      this.deps.logger.info({ why: verified.why }, "token refused");
      this.reply({ type: "error", code: "UNAUTHORIZED", message: `token refused: ${verified.why}` });
      this.closeWith("UNAUTHORIZED");
      return;
    }
    clearTimeout(this.helloTimer);
    this.attach(hello, verified.claims.sub, verified.claims.name);
  }

  /** Binds this socket to the player's session: the resumed one, or a new one (the newest login wins). */
  private attach(hello: HelloFrame, player: string, name: string): void {
    const resumed = hello.resume ? verifyResumeToken(hello.resume, this.deps.sessionSecret) : undefined;
    const sessionId = resumed?.player === player ? resumed.session : randomBytes(12).toString("base64url");
    const session = this.deps.sessions.get(sessionId) ?? new Session(sessionId, player, name);
    session.name = name;
    const previous = session.socket;
    session.socket = this;
    this.session = session;
    const replaced = this.deps.sessions.add(session);
    // Detach before closing: a socket closed because a newer one took over is not a disconnect.
    if (previous && previous !== this) previous.close(CloseCodes.REPLACED.code, "REPLACED");
    if (replaced) {
      const older = replaced.socket;
      replaced.socket = null;
      this.deps.sessions.remove(replaced);
      older?.close(CloseCodes.REPLACED.code, "REPLACED");
    }
    this.reply({
      type: "welcome",
      protocol: Math.min(hello.protocol, PROTOCOL_VERSION),
      session: session.id,
      resume: signResumeToken(session.id, player, this.deps.sessionSecret),
      player: { id: player, name },
      node: this.deps.nodeId,
      resumed: resumed?.player === player,
    });
    void this.rejoin(session);
  }

  /** After a (re)connect: find the player's lobby through its registry and mark the member connected. */
  private async rejoin(session: Session): Promise<void> {
    const found = await this.deps.system.ask(`player/${session.player}`, { type: "get" });
    const lobby = found.ok ? (found.value as { lobby: string | null }).lobby : null;
    if (!lobby || session.socket !== this) return;
    session.lobby = lobby;
    this.deps.system.tell(lobby, { type: "connection", player: session.player, connected: true });
  }

  private onClose(): void {
    this.closed = true;
    clearTimeout(this.helloTimer);
    const session = this.session;
    if (session?.socket !== this) return;
    session.socket = null;
    session.detachedAt = this.deps.now();
    if (session.lobby && !this.deps.stopping()) {
      this.deps.system.tell(session.lobby, { type: "connection", player: session.player, connected: false });
    }
  }
}

function idField(id: number | undefined): { id?: number } {
  return id === undefined ? {} : { id };
}

function toBytes(data: WebSocket.RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}
