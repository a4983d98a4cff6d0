import { decodeServerFrame, encodeFrame, readServerFrame } from "../protocol/codec.ts";
import { CloseCodes } from "../protocol/close-codes.ts";
import { errorCodeOfClose } from "../protocol/error-mapping.ts";
import { FoyerError } from "../protocol/foyer-error.ts";
import { PROTOCOL_VERSION, type ServerFrame } from "../protocol/server-frames.ts";
import type { FoyerClientOptions, FoyerEvents, SocketLike } from "./client-types.ts";
import { Emitter } from "./emitter.ts";
import { defaultLivenessMs, LivenessWatch } from "./liveness-watch.ts";
import { backoffMs, finalCloses, noWelcomeCode } from "./reconnect-policy.ts";
import { RedirectBackoff } from "./redirect-backoff.ts";

/**
 * The SDK's sockets: connects with bootstrap URLs, says hello with the player's token, resumes its
 * session after any drop (with a backoff, spread over the URLs), follows a `redirect` (at once, unless
 * the same URL keeps coming back: see RedirectBackoff), moves over
 * to the node a `moved` names (make before break), and leaves a node that fell silent. What the frames
 * say is `ClientConnection`'s.
 */
export abstract class ClientSockets extends Emitter<FoyerEvents> {
  protected socketUrl = "";
  protected socket: SocketLike | null = null;
  /**
   * The socket to the node a `moved` named, while the current one still serves (make before break):
   * calls go on over the current socket, whose node forwards them to the lobby's new owner, until this
   * one is welcomed; then the two swap and the old one is closed. Null when no move is on its way.
   */
  protected standby: Standby | null = null;
  /** An attempt is fetching its token: a second `open()` must not start another socket. */
  private opening = false;
  protected welcomed = false;
  protected resume: string | undefined;
  /** The last welcome said the fleet reads `hello.lobby` (a resume then names the lobby the client was in). */
  protected lobbyHint = false;
  /** This attempt's hello named a lobby (an older node refuses such a hello: the next attempt does not). */
  protected hinted = false;
  private urlIndex = 0;
  protected attempts = 0;
  protected closedByUser = false;
  private redirectTo: string | undefined;
  private readonly redirects = new RedirectBackoff();
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  protected attemptTimer: ReturnType<typeof setTimeout> | undefined;
  protected readonly Socket: new (url: string) => SocketLike;
  protected readonly connectTimeoutMs: number;
  /** Checks that the node still speaks (see `livenessMs`). */
  protected readonly liveness: LivenessWatch;

  constructor(protected readonly options: FoyerClientOptions) {
    super();
    if (options.urls.length === 0) throw new Error("FoyerClient needs at least one URL");
    const Socket =
      options.WebSocket ?? (globalThis as { WebSocket?: FoyerClientOptions["WebSocket"] }).WebSocket;
    if (!Socket) throw new Error("no WebSocket implementation: pass options.WebSocket (e.g. from 'ws')");
    this.Socket = Socket;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.liveness = new LivenessWatch(options.livenessMs ?? defaultLivenessMs);
  }

  /** Closes the connection for good; unanswered calls and a waiting `connect()` fail with UNAVAILABLE. */
  close(): void {
    if (this.closedByUser) return;
    this.closedByUser = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.attemptTimer);
    this.liveness.stop();
    this.dropStandby();
    const socket = this.socket;
    this.socket = null;
    this.welcomed = false;
    socket?.close(1000, "bye");
    this.endForGood(new FoyerError("UNAVAILABLE", "client closed"), 1000, "client closed");
  }

  protected encode(frame: object): Uint8Array | string {
    return encodeFrame(frame, this.options.json ? "json" : "msgpack");
  }

  /** Starts one connection attempt, unless one is open or on its way. */
  protected open(): void {
    if (this.socket || this.opening || this.closedByUser) return;
    clearTimeout(this.reconnectTimer);
    this.opening = true;
    void this.attempt();
  }

  /** One attempt: token, socket, hello. Never rejects: a failure is a failed attempt, retried later. */
  private async attempt(): Promise<void> {
    const url = this.redirectTo ?? this.options.urls[this.urlIndex % this.options.urls.length] ?? "";
    this.redirectTo = undefined;
    let socket: SocketLike;
    let token: string;
    try {
      token = typeof this.options.token === "string" ? this.options.token : await this.options.token();
      if (this.closedByUser) return;
      socket = new this.Socket(url); // throws on a malformed URL
    } catch {
      if (!this.closedByUser) this.retryLater();
      return;
    } finally {
      this.opening = false;
    }
    this.socket = socket;
    this.socketUrl = url;
    this.attemptTimer = this.wire(socket, token);
  }

  /**
   * Sets a socket's handlers: frames and the close go to the current connection while it is `socket`,
   * or to the standby's handling while it is the standby. Returns its timer for a welcome that never
   * comes.
   */
  private wire(socket: SocketLike, token: string): ReturnType<typeof setTimeout> {
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      const resume = this.resume ? { resume: this.resume } : {};
      const code = this.resume && this.lobbyHint ? this.helloLobby() : undefined;
      if (this.socket === socket) this.hinted = code !== undefined;
      else if (this.standby?.socket === socket) this.standby.hinted = code !== undefined;
      const lobby = code === undefined ? {} : { lobby: code };
      socket.send(this.encode({ type: "hello", protocol: PROTOCOL_VERSION, token, ...resume, ...lobby }));
    };
    socket.onmessage = (ev) => {
      if (this.socket === socket) this.onFrame(ev.data);
      else if (this.standby?.socket === socket) this.onStandbyFrame(this.standby, ev.data);
    };
    socket.onerror = () => undefined;
    socket.onclose = (ev) => {
      if (this.standby?.socket === socket) this.standbyFailed(this.standby);
      else this.onClose(socket, ev.code, ev.reason);
    };
    if (canPing(socket)) {
      // WebSocket pings and pongs are the node speaking too: the answer to ours, or its own heartbeat.
      const heard = (): void => {
        if (this.socket === socket) this.liveness.heard();
      };
      socket.on("ping", heard);
      socket.on("pong", heard);
    }
    // A node that accepts the socket but never welcomes must not hold the client: give up on it.
    return setTimeout(() => {
      // Silenced first: a late hello from it must not race the next attempt's (a REPLACED would follow).
      socket.onopen = null;
      socket.onclose = null;
      socket.close(noWelcomeCode, "no welcome");
      if (this.standby?.socket === socket) this.standbyFailed(this.standby);
      else this.onClose(socket, noWelcomeCode, "no welcome in time");
    }, this.connectTimeoutMs);
  }

  /**
   * A `moved` (the lobby moved to another node, a drain): make before break. A second socket says hello
   * to the new node while calls go on over this one (this node forwards them to the lobby's new owner);
   * once it is welcomed the two swap. A client not welcomed yet follows at once, as for a redirect.
   */
  protected moveOver(url: string): void {
    if (!this.welcomed || this.socket === null) {
      this.follow(url);
      return;
    }
    if (this.standby?.url === url) return;
    this.dropStandby();
    const standby: Standby = { url, socket: null, timer: undefined, hinted: false };
    this.standby = standby;
    void this.openStandby(standby);
  }

  private async openStandby(standby: Standby): Promise<void> {
    let socket: SocketLike;
    let token: string;
    try {
      token = typeof this.options.token === "string" ? this.options.token : await this.options.token();
      if (this.standby !== standby || this.closedByUser) return;
      socket = new this.Socket(standby.url); // throws on a malformed URL
    } catch {
      if (this.standby === standby) this.standbyFailed(standby);
      return;
    }
    standby.socket = socket;
    standby.timer = this.wire(socket, token);
  }

  /** Before its welcome the standby hears nothing else worth reading (a refused hello is followed by its close). */
  private onStandbyFrame(standby: Standby, data: unknown): void {
    const welcome = this.read(data);
    if (welcome?.type !== "welcome" || standby.socket === null) return;
    // The swap: the old socket is closed (its node does not report the player gone), and the welcome
    // is handled as any other, which re-sends the calls the old socket left unanswered. What the old
    // socket still delivers before its close is heard (a push relayed to it just before the new node
    // took over would be lost otherwise); repeated frames are dropped by their stamps, repeated answers
    // by their ids.
    const old = this.socket;
    this.standby = null;
    if (old !== null) {
      old.onclose = null;
      old.onmessage = (ev) => {
        this.onOldFrame(ev.data);
      };
      old.close(4998, "moved");
    }
    clearTimeout(this.attemptTimer);
    this.attemptTimer = standby.timer;
    this.socket = standby.socket;
    this.socketUrl = standby.url;
    this.welcomed = false;
    this.liveness.heard();
    this.dispatch(welcome);
  }

  /** A frame the socket left behind by a move still delivered: anything but a word about connecting. */
  private onOldFrame(data: unknown): void {
    const frame = this.read(data);
    if (frame !== null && !oldSocketIgnores.has(frame.type)) this.dispatch(frame);
  }

  /** The standby could not be welcomed: move as a redirect does, if the old socket still serves. */
  private standbyFailed(standby: Standby): void {
    if (this.standby !== standby) return;
    this.dropStandby();
    if (this.socket !== null && !this.closedByUser) this.follow(standby.url);
  }

  private dropStandby(): void {
    const standby = this.standby;
    if (standby === null) return;
    this.standby = null;
    clearTimeout(standby.timer);
    const socket = standby.socket;
    if (socket === null) return;
    socket.onopen = null;
    socket.onclose = null;
    socket.onmessage = null;
    socket.close(1000, "not needed");
  }

  private onClose(socket: SocketLike, code: number, reason: string): void {
    if (this.socket !== socket) return;
    this.socket = null;
    clearTimeout(this.attemptTimer);
    const wasReady = this.welcomed;
    this.welcomed = false;
    if (this.closedByUser) return;
    if (code === CloseCodes.PROTOCOL.code && this.hinted && !wasReady) {
      // A node of an older release (a rolling deploy) does not know `hello.lobby`: resume without it.
      this.lobbyHint = false;
      this.hinted = false;
      this.dropStandby();
      this.retryLater();
      return;
    }
    const standby = this.standby;
    if (standby?.socket != null && (code === CloseCodes.REPLACED.code || !finalCloses.has(code))) {
      // Lost while moving: the socket to the new node carries on as this attempt (its hello is said).
      // Replaced, even: behind one address the new socket may have reached this very node.
      this.standby = null;
      this.attemptTimer = standby.timer;
      this.socket = standby.socket;
      this.socketUrl = standby.url;
      this.hinted = standby.hinted;
      if (wasReady) this.emit("disconnected", { code, reason });
      return;
    }
    if (finalCloses.has(code)) {
      this.dropStandby();
      this.closedByUser = true;
      this.endForGood(new FoyerError(errorCodeOfClose(code), reason), code, reason);
      return;
    }
    if (standby !== null) {
      // Lost while the new socket's token is fetched: the next attempt goes where the move said.
      this.dropStandby();
      this.redirectTo = standby.url;
    }
    if (wasReady) this.emit("disconnected", { code, reason });
    this.retryLater();
  }

  /**
   * Goes to the node a `redirect` names (or a `moved`, when the client cannot move over) without waiting
   * for the old socket's close handshake: the old one is silenced and closed, and unanswered requests are
   * re-sent after the new welcome, as after any reconnect. At once, unless the same URL came back a
   * moment ago: then after a growing wait (RedirectBackoff), never past the first pending call's deadline.
   */
  protected follow(url: string): void {
    this.dropStandby();
    const old = this.socket;
    this.redirectTo = url;
    if (old === null) return;
    old.onclose = null;
    old.onmessage = null;
    old.close(4998, "following redirect");
    this.socket = null;
    this.welcomed = false;
    clearTimeout(this.attemptTimer);
    const wait = this.redirectWait(url);
    if (wait <= 0) {
      this.open();
      return;
    }
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => {
      this.open();
    }, wait);
  }

  private redirectWait(url: string): number {
    const now = Date.now();
    const wait = this.redirects.next(url, now);
    const deadline = this.callDeadline();
    return deadline === undefined ? wait : Math.min(wait, Math.max(0, deadline - now));
  }

  /**
   * Tries the next URL after a backoff. The first try after losing a node goes to a random other URL of
   * three or more: the clients of a node that died spread over the survivors (each takes over the lobbies
   * its members come back to) instead of all landing on the next one in the list.
   */
  private retryLater(): void {
    const count = this.options.urls.length;
    this.urlIndex += this.attempts === 0 && count > 2 ? 1 + Math.floor(Math.random() * (count - 1)) : 1;
    const { reconnectMinMs = 50, reconnectMaxMs = 2_000 } = this.options;
    const delay = backoffMs(this.attempts++, reconnectMinMs, reconnectMaxMs);
    this.reconnectTimer = setTimeout(() => {
      this.open();
    }, delay);
  }

  /** While welcomed, the node's silence is watched (see `LivenessWatch`). */
  protected watchLiveness(socket: SocketLike): void {
    this.liveness.watch({
      current: () => this.socket === socket,
      ping: (now) => {
        if (canPing(socket)) socket.ping();
        else socket.send(this.encode({ type: "ping", t: now }));
      },
      silent: () => {
        // Silenced first, as for a lost attempt: the frozen node may wake and close it much later.
        socket.onclose = null;
        socket.onmessage = null;
        socket.close(noWelcomeCode, "node silent");
        this.onClose(socket, noWelcomeCode, "the node stopped answering");
      },
    });
  }

  private onFrame(data: unknown): void {
    this.liveness.heard();
    const frame = this.read(data);
    if (frame === null) return;
    if (frame.type === "result") this.redirects.served();
    this.dispatch(frame);
  }

  /** A socket's message as a server frame (checked against its schema with `validate`), or null. */
  private read(data: unknown): ServerFrame | null {
    const raw = typeof data === "string" ? data : new Uint8Array(data as ArrayBuffer);
    const decoded = this.options.validate === true ? decodeServerFrame(raw) : readServerFrame(raw);
    return decoded.ok ? decoded.frame : null;
  }

  /** The deadline (epoch ms) of the pending call due first, or undefined when none is pending. */
  protected abstract callDeadline(): number | undefined;

  /** A frame of the current socket (or of one left behind by a move). */
  protected abstract dispatch(frame: ServerFrame): void;

  /** The connection ended for good (closed, or a final close): every waiting caller fails with `error`. */
  protected abstract endForGood(error: FoyerError, code: number, reason: string): void;

  /** The code of the private lobby the client shows, which a resume's hello names (or undefined). */
  protected abstract helloLobby(): string | undefined;
}

/** A socket opened to the node a `moved` named, not welcomed yet (see `ClientSockets.standby`). */
interface Standby {
  readonly url: string;
  /** Null while the token is fetched. */
  socket: SocketLike | null;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Its hello named the lobby (an older node refuses that: see `ClientSockets.hinted`). */
  hinted: boolean;
}

/** Frames of a socket left behind by a move that are not heard: the new socket speaks for the node. */
const oldSocketIgnores: ReadonlySet<string> = new Set(["welcome", "redirect", "moved", "serverDraining"]);

/** A socket that sends WebSocket pings and reports control frames (`ws`); a browser's does neither. */
function canPing(socket: SocketLike): socket is SocketLike & Required<Pick<SocketLike, "ping" | "on">> {
  return typeof socket.ping === "function" && typeof socket.on === "function";
}
