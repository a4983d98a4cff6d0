import { FoyerError } from "../protocol/foyer-error.ts";
import { decodeServerFrame, encodeFrame, readServerFrame } from "../protocol/codec.ts";
import type { RequestFrame } from "../protocol/client-frames.ts";
import { CloseCodes } from "../protocol/close-codes.ts";
import { errorCodeOfClose } from "../protocol/error-mapping.ts";
import {
  PROTOCOL_VERSION,
  type ActivityEventView,
  type LobbyView,
  type RoomView,
  type ServerFrame,
  type TurnsWantedFrame,
} from "../protocol/server-frames.ts";
import type { FoyerClientOptions, FoyerEvents, RequestBody, SocketLike } from "./client-types.ts";
import { ConnectWaiters } from "./connect-waiters.ts";
import { BlobAssembler, sha256Hex } from "./blob-transfer.ts";
import { Emitter } from "./emitter.ts";
import { EpochFilter } from "./epoch-filter.ts";
import { PendingCalls } from "./pending-calls.ts";
import { probeRoundTrip } from "./region-probe.ts";
import { backoffMs, finalCloses, noWelcomeCode } from "./reconnect-policy.ts";
import { encodedTurnBytes, TurnLog, type TurnView } from "./turn-log.ts";

const OPEN = 1;

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

/**
 * The SDK's transport: connects with bootstrap URLs, says hello with the player's token, and resumes its
 * session after any drop. Every call gets a request id; unanswered calls are re-sent with the same id
 * after a reconnect (the node applies them once), retryable refusals are retried until the call's
 * deadline, and frames from an older owner (an older epoch) are dropped. `FoyerClient` adds the typed
 * requests.
 */
export class ClientCore extends Emitter<FoyerEvents> {
  /** The latest state of the player's lobby, or null. */
  lobby: LobbyView | null = null;
  /**
   * The key of the activity lobby the player is in (`activityLobby/<id>/<n>`), or null: set by the
   * player's own PLAYER_ADDED, cleared by its own PLAYER_REMOVED or a `leaveActivity`.
   */
  activityLobby: string | null = null;
  /**
   * The latest `room` frame of the player's relay room (its final one, `ended: true`, stays until the
   * next room), or null; `leaveRoom` clears it.
   */
  room: RoomView | null = null;
  /** The player's id, once connected. */
  player: string | null = null;
  /** The room document being received, and the ids already handed on (each is fetched once). */
  private blobDownload: BlobAssembler | null = null;
  private readonly blobsDone = new Set<string>();
  /** The connected node's region (its `--region`, from `welcome`), or null when it has none. */
  region: string | null = null;
  /** One node URL per region of the fleet (from `welcome`); empty when the node lists none. */
  regions: readonly { readonly region: string; readonly url: string }[] = [];
  /** The URL of the node this client is connected to (welcomed), or null. */
  url: string | null = null;
  private socketUrl = "";
  /** Round-trip measurements waiting for their `pong`, by the `t` they sent. */
  private readonly pings = new Map<number, ((now: number) => void)[]>();
  private socket: SocketLike | null = null;
  /**
   * The socket to the node a `moved` named, while the current one still serves (make before break):
   * calls go on over the current socket, whose node forwards them to the lobby's new owner, until this
   * one is welcomed; then the two swap and the old one is closed. Null when no move is on its way.
   */
  private standby: Standby | null = null;
  /** An attempt is fetching its token: a second `open()` must not start another socket. */
  private opening = false;
  private welcomed = false;
  private resume: string | undefined;
  /** The last welcome said the fleet reads `hello.lobby` (a resume then names the lobby the client was in). */
  private lobbyHint = false;
  /** The last welcome said the node reads a request's `ack` (older nodes refuse a request that has one). */
  private acks = false;
  /** This attempt's hello named a lobby (an older node refuses such a hello: the next attempt does not). */
  private hinted = false;
  private nextId = 1;
  private urlIndex = 0;
  private attempts = 0;
  private closedByUser = false;
  private redirectTo: string | undefined;
  private reconnectTimer: ReturnType<typeof setTimeout> | undefined;
  private attemptTimer: ReturnType<typeof setTimeout> | undefined;
  /** Checks that the node still speaks (see `livenessMs`). */
  private livenessTimer: ReturnType<typeof setTimeout> | undefined;
  private lastHeardAt = 0;
  private readonly Socket: new (url: string) => SocketLike;
  private readonly connectTimeoutMs: number;
  private readonly pending = new PendingCalls((frame) => this.transmit(frame));
  private readonly waiters = new ConnectWaiters();
  private readonly epochs = new EpochFilter();
  /** The room's turns, handed on in order and kept (bounded) for the room's `turnsWanted`. */
  private readonly turnLog = new TurnLog();
  /** A `roomTurns` catch-up is on its way. */
  private catchingUp = false;

  constructor(protected readonly options: FoyerClientOptions) {
    super();
    if (options.urls.length === 0) throw new Error("FoyerClient needs at least one URL");
    const Socket =
      options.WebSocket ?? (globalThis as { WebSocket?: FoyerClientOptions["WebSocket"] }).WebSocket;
    if (!Socket) throw new Error("no WebSocket implementation: pass options.WebSocket (e.g. from 'ws')");
    this.Socket = Socket;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  }

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

  /** Closes the connection for good; unanswered calls and a waiting `connect()` fail with UNAVAILABLE. */
  close(): void {
    if (this.closedByUser) return;
    this.closedByUser = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.attemptTimer);
    clearTimeout(this.livenessTimer);
    this.dropStandby();
    const socket = this.socket;
    this.socket = null;
    this.welcomed = false;
    socket?.close(1000, "bye");
    this.endForGood(new FoyerError("UNAVAILABLE", "client closed"), 1000, "client closed");
  }

  /**
   * One round trip to the connected node (ms), with a `ping` frame and its `pong`. Rejects when not
   * connected, or after `timeoutMs` without an answer.
   */
  measurePing(timeoutMs = 5_000): Promise<number> {
    const socket = this.socket;
    if (!this.welcomed || socket?.readyState !== OPEN) return Promise.reject(new Error("not connected"));
    const t = Date.now();
    return new Promise<number>((resolve, reject) => {
      const done = (now: number): void => {
        clearTimeout(timer);
        resolve(now - t);
      };
      const timer = setTimeout(() => {
        const left = (this.pings.get(t) ?? []).filter((d) => d !== done);
        if (left.length === 0) this.pings.delete(t);
        else this.pings.set(t, left);
        reject(new Error("no pong in time"));
      }, timeoutMs);
      this.pings.set(t, [...(this.pings.get(t) ?? []), done]);
      socket.send(this.encode({ type: "ping", t }));
    });
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

  private encode(frame: object): Uint8Array | string {
    return encodeFrame(frame, this.options.json ? "json" : "msgpack");
  }

  /** Starts one connection attempt, unless one is open or on its way. */
  private open(): void {
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
      const code =
        this.resume && this.lobbyHint && this.lobby?.key.startsWith("lobby/") === true
          ? this.lobby.code
          : undefined;
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
        if (this.socket === socket) this.lastHeardAt = Date.now();
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
  private moveOver(url: string): void {
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
    this.lastHeardAt = Date.now();
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
   * Goes to the node a `redirect` names (or a `moved`, when the client cannot move over) at once — no backoff, no waiting for the old socket's
   * close handshake: the old one is silenced and closed, and unanswered requests are re-sent after the
   * new welcome, as after any reconnect.
   */
  private follow(url: string): void {
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
    this.open();
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

  private endForGood(error: FoyerError, code: number, reason: string): void {
    this.waiters.fail(error);
    this.pending.failAll(error);
    this.emit("closed", { code, reason });
  }

  /**
   * While welcomed: a ping once the node has been silent for `livenessMs` less the time it gets to answer
   * (`pingMarginMs`), a drop past all of it. On a socket that can (`ws` in Node) the ping is a WebSocket
   * ping, answered by the node's WebSocket library without a Foyer frame to decode, and the node's own
   * heartbeat pings count as hearing it, so an idle client in Node pings only a node whose heartbeat is
   * late. A browser's socket can do neither: it sends a `ping` frame. One timer per client, armed for
   * the next moment something is due.
   */
  private watchLiveness(socket: SocketLike): void {
    clearTimeout(this.livenessTimer);
    const livenessMs = this.options.livenessMs ?? defaultLivenessMs;
    if (livenessMs <= 0) return;
    const pingAfterMs = livenessMs - pingMarginMs(livenessMs);
    this.lastHeardAt = Date.now();
    let pingedAt = -1;
    const check = (): void => {
      if (this.socket !== socket) return;
      const now = Date.now();
      const silentMs = now - this.lastHeardAt;
      if (silentMs >= livenessMs) {
        // Silenced first, as for a lost attempt: the frozen node may wake and close it much later.
        socket.onclose = null;
        socket.onmessage = null;
        socket.close(noWelcomeCode, "node silent");
        this.onClose(socket, noWelcomeCode, "the node stopped answering");
        return;
      }
      // One ping per silence: none while one is out. Its answer may come in the same millisecond.
      if (silentMs >= pingAfterMs && pingedAt <= this.lastHeardAt) {
        pingedAt = now;
        if (canPing(socket)) socket.ping();
        else socket.send(this.encode({ type: "ping", t: now }));
      }
      const dueMs = silentMs >= pingAfterMs ? livenessMs : pingAfterMs;
      this.livenessTimer = setTimeout(check, dueMs - silentMs);
    };
    this.livenessTimer = setTimeout(check, pingAfterMs);
  }

  private onFrame(data: unknown): void {
    this.lastHeardAt = Date.now();
    const frame = this.read(data);
    if (frame !== null) this.dispatch(frame);
  }

  /** A socket's message as a server frame (checked against its schema with `validate`), or null. */
  private read(data: unknown): ServerFrame | null {
    const raw = typeof data === "string" ? data : new Uint8Array(data as ArrayBuffer);
    const decoded = this.options.validate === true ? decodeServerFrame(raw) : readServerFrame(raw);
    return decoded.ok ? decoded.frame : null;
  }

  private dispatch(frame: ServerFrame): void {
    switch (frame.type) {
      case "welcome":
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
        this.rejoinRoom();
        this.waiters.succeed();
        this.emit("connected", { resumed: frame.resumed, node: frame.node });
        return;
      case "result":
        this.pending.settle(frame.id, { value: frame.value });
        return;
      case "error":
        this.pending.refused(frame);
        return;
      case "lobby":
        if (this.epochs.admit(frame)) this.onLobby(frame);
        return;
      case "room":
        if (this.epochs.admit(frame)) {
          this.room = frame;
          this.turnLog.enter(frame.key);
          this.emit("room", frame);
          if (frame.phase === "playing" && frame.turn > this.turnLog.delivered) this.catchUp();
          if (frame.phase === "playing" && frame.blob) this.fetchBlob(frame.blob);
        }
        return;
      case "turn":
        if (this.epochs.admit(frame)) this.onTurn(frame);
        return;
      case "turnsGone":
        if (this.epochs.admit(frame)) {
          this.turnLog.enter(frame.key);
          this.emit("roomEvent", frame);
          for (const ready of this.turnLog.skipTo(frame.to)) this.emit("roomEvent", ready);
        }
        return;
      case "turnsWanted":
        if (this.epochs.admit(frame)) void this.sendHeldTurns(frame);
        return;
      case "resumed":
        if (this.epochs.admit(frame)) {
          this.emit("roomEvent", frame);
          if (frame.turn - 1 > this.turnLog.delivered && this.turnLog.room === frame.key) this.catchUp();
        }
        return;
      case "paused":
      case "checksum":
      case "desync":
      case "chat":
        if (this.epochs.admit(frame)) this.emit("roomEvent", frame);
        return;
      case "activity":
        if (this.epochs.admit(frame)) this.onActivity(frame);
        return;
      case "activityTransfer":
        if (this.epochs.admit(frame)) this.emit("activityTransfer", frame);
        return;
      case "matchedLobby":
      case "matchFound":
      case "matchCancelled":
      case "matchReady":
      case "matchmakingFailed":
      case "lobbyStarted":
      case "lobbyRemoved":
      case "lobbyDisbanded":
        if (this.epochs.admit(frame)) this.emit("matchmaking", frame);
        return;
      case "matchRunning":
        // The gateway's own answer to a reconnect, not an actor's push: it carries no stamp.
        this.emit("matchmaking", frame);
        return;
      case "redirect":
        this.follow(frame.url);
        return;
      case "moved":
        if (this.standby?.url !== frame.url) this.emit("moving", { key: frame.key, url: frame.url });
        this.moveOver(frame.url);
        return;
      case "serverDraining":
        this.emit("serverDraining", undefined);
        return;
      case "noLobby":
        // Away past its grace: the lobby this client still shows let it go meanwhile.
        if (this.lobby !== null) {
          const code = this.lobby.code;
          this.lobby = null;
          this.emit("left", { code });
        }
        return;
      case "blobData":
        this.onBlobData(frame);
        return;
      case "pong": {
        const waiting = this.pings.get(frame.t);
        this.pings.delete(frame.t);
        for (const done of waiting ?? []) done(Date.now());
        return;
      }
    }
  }

  /**
   * At the start of a room with a document, fetches it once (`getRoomBlob`): its `blobData` chunks are
   * assembled in order and, once the SHA-256 matches, handed on as a `blob` event. A download cut by a
   * reconnect goes on from the next chunk with the next room frame.
   */
  private fetchBlob(ref: { id: string; size: number; digest: string }): void {
    if (this.blobsDone.has(ref.id) || this.blobFetching) return;
    const current = this.blobDownload;
    const from = current?.blob === ref.id ? current.nextIndex : 0;
    this.blobFetching = true;
    this.call({ type: "getRoomBlob", ...(from > 0 ? { from } : {}) }, 120_000).then(
      () => {
        this.blobFetching = false;
      },
      (error: unknown) => {
        this.blobFetching = false;
        this.emit("blobFailed", {
          id: ref.id,
          reason: error instanceof Error ? error.message : String(error),
        });
      },
    );
  }

  private blobFetching = false;

  private onBlobData(frame: Extract<ServerFrame, { type: "blobData" }>): void {
    if (this.blobsDone.has(frame.blob)) return;
    if (this.blobDownload?.blob !== frame.blob) {
      this.blobDownload = new BlobAssembler(frame.blob, frame.size, frame.count, frame.digest);
    }
    const step = this.blobDownload.add(frame);
    if (step.status === "more") return;
    this.blobDownload = null;
    if (step.status === "refused") {
      this.emit("blobFailed", { id: frame.blob, reason: step.reason });
      return;
    }
    this.blobsDone.add(frame.blob);
    void sha256Hex(step.bytes).then((digest) => {
      if (digest === frame.digest) this.emit("blob", { id: frame.blob, bytes: step.bytes, digest });
      else this.emit("blobFailed", { id: frame.blob, reason: "the document's SHA-256 does not match" });
    });
  }

  /**
   * After every (re)connect, a room created directly that has not ended is joined again: a node that did
   * not know this session (the old one died, or the reconnect went to another bootstrap URL) learns the
   * player's room, and redirects the socket to the room's node when it lives elsewhere — a room's frames
   * reach only sockets on its own node. A lobby's room is found through the lobby instead. Once at a time:
   * an unanswered rejoin is re-sent with the other calls.
   */
  private rejoinRoom(): void {
    const room = this.room;
    if (room === null || room.ended || !room.direct || this.rejoining) return;
    this.rejoining = true;
    this.call({ type: "joinRoom", code: room.code }).then(
      () => {
        this.rejoining = false;
      },
      () => {
        // Gone meanwhile (ended, or the seat went to AI): its last frame says so, or nothing is left.
        this.rejoining = false;
      },
    );
  }

  private rejoining = false;

  /** A turn: handed on in order; one that comes early waits while the missing ones are fetched. */
  private onTurn(frame: TurnView): void {
    this.turnLog.enter(frame.key);
    const { ready, gap } = this.turnLog.accept(frame);
    for (const turn of ready) this.emit("roomEvent", turn);
    if (gap) this.catchUp();
  }

  /**
   * Asks the room for the turns after the last one handed on; they come as turn frames before the
   * answer. Asks again while that made progress and turns are still missing.
   */
  private catchUp(): void {
    if (this.catchingUp) return;
    this.catchingUp = true;
    const from = this.turnLog.delivered;
    this.call({ type: "roomTurns", after: from }).then(
      (value) => {
        this.catchingUp = false;
        const last = (value as { turn?: number } | null)?.turn ?? 0;
        if (this.turnLog.delivered > from && this.turnLog.delivered < last) this.catchUp();
      },
      () => {
        this.catchingUp = false;
      },
    );
  }

  /**
   * After a failover the room asks for the turns this player holds after `after`: they go back in
   * batches that fit the node's frame limit, the last one `done`.
   */
  private async sendHeldTurns(frame: TurnsWantedFrame): Promise<void> {
    const budget = (this.options.maxFrameBytes ?? 65_536) / 2;
    const held = this.turnLog.room === frame.key ? this.turnLog.after(frame.after) : [];
    let after = frame.after;
    let index = 0;
    try {
      do {
        const batch: { turn: number; commands: TurnView["commands"]; ai: number[] }[] = [];
        let bytes = 64;
        for (let t = held[index]; t !== undefined; t = held[index]) {
          const size = encodedTurnBytes(t);
          if (batch.length > 0 && bytes + size > budget) break;
          batch.push({ turn: t.turn, commands: t.commands, ai: t.ai ?? [] });
          bytes += size;
          index++;
        }
        const done = index >= held.length;
        await this.call({ type: "heldTurns", after, turns: batch, done });
        after += batch.length;
      } while (index < held.length);
    } catch {
      // The room stopped waiting (it resumed without us, or ended): nothing left to answer.
    }
  }

  private onActivity(frame: ActivityEventView): void {
    if (frame.event === "PLAYER_ADDED" && frame.player === this.player) this.activityLobby = frame.key;
    else if (
      frame.event === "PLAYER_REMOVED" &&
      frame.player === this.player &&
      this.activityLobby === frame.key
    )
      this.activityLobby = null;
    this.emit("activity", frame);
  }

  private onLobby(frame: LobbyView): void {
    const inIt = frame.members.some((m) => m.player === this.player);
    if (!inIt) {
      if (this.lobby?.key === frame.key) {
        this.lobby = null;
        this.emit("left", { code: frame.code });
      }
      return;
    }
    this.lobby = frame;
    this.emit("lobby", frame);
  }
}

/** A socket that sends WebSocket pings and reports control frames (`ws`); a browser's does neither. */
/** A socket opened to the node a `moved` named, not welcomed yet (see `ClientCore.standby`). */
interface Standby {
  readonly url: string;
  /** Null while the token is fetched. */
  socket: SocketLike | null;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Its hello named the lobby (an older node refuses that: see `ClientCore.hinted`). */
  hinted: boolean;
}

/** Frames of a socket left behind by a move that are not heard: the new socket speaks for the node. */
const oldSocketIgnores: ReadonlySet<string> = new Set(["welcome", "redirect", "moved", "serverDraining"]);

function canPing(socket: SocketLike): socket is SocketLike & Required<Pick<SocketLike, "ping" | "on">> {
  return typeof socket.ping === "function" && typeof socket.on === "function";
}
