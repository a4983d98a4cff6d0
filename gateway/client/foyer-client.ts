import { FoyerError } from "../foyer-error.ts";
import { decodeServerFrame, encodeFrame, readServerFrame } from "../protocol/codec.ts";
import type { RequestFrame } from "../protocol/client-frames.ts";
import { CloseCodes } from "../protocol/close-codes.ts";
import {
  PROTOCOL_VERSION,
  type LobbyView,
  type RoomEventFrame,
  type RoomView,
  type ServerFrame,
} from "../protocol/server-frames.ts";
import { EpochFilter } from "./epoch-filter.ts";
import { Emitter } from "./emitter.ts";

/** The WebSocket the SDK needs: the browser's, or `ws` in Node. */
export interface SocketLike {
  binaryType: string;
  readonly readyState: number;
  send(data: Uint8Array | string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

/** Options of a FoyerClient. */
export interface FoyerClientOptions {
  /** Bootstrap URLs (`ws://host:port/ws`); the client tries them in turn when it (re)connects. */
  readonly urls: readonly string[];
  /** The player's signed token, or a function that fetches a fresh one. */
  readonly token: string | (() => string | Promise<string>);
  /** A WebSocket constructor; defaults to the global one (browsers, Node 22+). */
  readonly WebSocket?: new (url: string) => SocketLike;
  /** How long a call may take, retries included, before it fails with TIMEOUT. */
  readonly callTimeoutMs?: number;
  /** Reconnect backoff bounds. */
  readonly reconnectMinMs?: number;
  readonly reconnectMaxMs?: number;
  /** Send JSON text frames instead of msgpack (for debugging). */
  readonly json?: boolean;
  /**
   * Validate every frame from the node against the full zod schemas (for debugging a custom node or a
   * protocol mismatch). Off by default: the SDK trusts the node it authenticated to and only checks a
   * frame's type, which keeps a browser's main thread free.
   */
  readonly validate?: boolean;
}

/** Events a client emits. */
export interface FoyerEvents {
  lobby: LobbyView;
  room: RoomView;
  /** A relay room's turn, pause, resume, checksum, desync or chat frame. */
  roomEvent: RoomEventFrame;
  left: { code: string };
  serverDraining: undefined;
  connected: { resumed: boolean; node: string };
  disconnected: { code: number; reason: string };
  /** The connection ended for good (bad token, replaced by a newer login, or close()). */
  closed: { code: number; reason: string };
}

interface Pending {
  readonly frame: RequestFrame;
  readonly deadline: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: FoyerError) => void;
  deadlineTimer?: ReturnType<typeof setTimeout>;
}

type Distribute<T> = T extends unknown ? Omit<T, "id"> : never;
type RequestBody = Distribute<RequestFrame>;

const OPEN = 1;
const finalCloses = new Set<number>([
  CloseCodes.UNAUTHORIZED.code,
  CloseCodes.REPLACED.code,
  CloseCodes.PROTOCOL.code,
]);

/**
 * The TypeScript SDK: connects with bootstrap URLs, says hello with the player's token, and resumes its
 * session after any drop. Every call gets a request id; unanswered calls are re-sent with the same id
 * after a reconnect (the node applies them once), retryable refusals are retried until the call's
 * deadline, and frames from an older owner (an older epoch) are dropped.
 */
export class FoyerClient extends Emitter<FoyerEvents> {
  /** The latest state of the player's lobby, or null. */
  lobby: LobbyView | null = null;
  /** The player's id, once connected. */
  player: string | null = null;
  private socket: SocketLike | null = null;
  private welcomed = false;
  private resume: string | undefined;
  private nextId = 1;
  private urlIndex = 0;
  private attempts = 0;
  private closedByUser = false;
  private redirectTo: string | undefined;
  private readonly pending = new Map<number, Pending>();
  private readonly epochs = new EpochFilter();
  private connectWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];

  constructor(private readonly options: FoyerClientOptions) {
    super();
    if (options.urls.length === 0) throw new Error("FoyerClient needs at least one URL");
  }

  /** Opens the connection; resolves after the welcome. */
  connect(): Promise<void> {
    this.closedByUser = false;
    const done = new Promise<void>((resolve, reject) => this.connectWaiters.push({ resolve, reject }));
    if (!this.socket) void this.open();
    return done;
  }

  /** Joins a lobby by code (any case, spaces ignored); an empty code creates a private lobby. */
  join(code: string): Promise<{ code: string }> {
    return this.call({ type: "join", code }) as Promise<{ code: string }>;
  }

  /** Creates a lobby; public ones appear in browse lists with their metadata. */
  create(
    opts: { public?: boolean; metadata?: Record<string, string | number | boolean> } = {},
  ): Promise<{ code: string }> {
    return this.call({ type: "create", ...opts }) as Promise<{ code: string }>;
  }

  leave(): Promise<unknown> {
    return this.call({ type: "leave" });
  }
  ready(ready = true): Promise<unknown> {
    return this.call({ type: "ready", ready });
  }
  profile(name: string): Promise<unknown> {
    return this.call({ type: "profile", name });
  }
  /** Host only: starts a room in `mode`. */
  start(mode: string): Promise<{ room: string }> {
    return this.call({ type: "start", mode }) as Promise<{ room: string }>;
  }
  /** Host only: hands the host role to another member. */
  makeHost(player: string): Promise<unknown> {
    return this.call({ type: "makeHost", player });
  }
  /** Back to the lobby: the host ends the room for everyone, a guest steps out alone. */
  return(): Promise<unknown> {
    return this.call({ type: "return" });
  }
  /** Reports that the match in the player's room is over. */
  finish(): Promise<unknown> {
    return this.call({ type: "finish" });
  }
  /** Lists public lobbies. */
  browse(opts: { mode?: string; freeOnly?: boolean } = {}): Promise<{ lobbies: unknown[] }> {
    return this.call({ type: "browse", ...opts }) as Promise<{ lobbies: unknown[] }>;
  }

  /** Sends a request and waits for its answer, retrying retryable refusals until the deadline. */
  call(body: RequestBody, timeoutMs = this.options.callTimeoutMs ?? 10_000): Promise<unknown> {
    const frame = { ...body, id: this.nextId++ };
    return new Promise((resolve, reject) => {
      const entry: Pending = { frame, deadline: Date.now() + timeoutMs, resolve, reject };
      this.pending.set(frame.id, entry);
      entry.deadlineTimer = setTimeout(() => {
        this.settle(frame.id, new FoyerError("TIMEOUT", `${frame.type} was not answered in ${timeoutMs} ms`));
      }, timeoutMs);
      this.transmit(frame);
    });
  }

  /** Closes the connection for good; unanswered calls fail with UNAVAILABLE. */
  close(): void {
    this.closedByUser = true;
    this.socket?.close(1000, "bye");
    this.socket = null;
    for (const id of [...this.pending.keys()])
      this.settle(id, new FoyerError("UNAVAILABLE", "client closed"));
  }

  /** Drops the socket without saying goodbye, as a network failure would; the client reconnects by itself. */
  dropConnection(): void {
    this.socket?.close(4999, "dropped by test");
  }

  private transmit(frame: RequestFrame): void {
    if (this.welcomed && this.socket?.readyState === OPEN)
      this.socket.send(encodeFrame(frame, this.encoding()));
  }

  private encoding(): "json" | "msgpack" {
    return this.options.json ? "json" : "msgpack";
  }

  private settle(id: number, outcome: FoyerError | { value: unknown }): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    clearTimeout(entry.deadlineTimer);
    if (outcome instanceof FoyerError) entry.reject(outcome);
    else entry.resolve(outcome.value);
  }

  private async open(): Promise<void> {
    const url = this.redirectTo ?? this.options.urls[this.urlIndex % this.options.urls.length] ?? "";
    this.redirectTo = undefined;
    const Ctor =
      this.options.WebSocket ?? (globalThis as { WebSocket?: new (url: string) => SocketLike }).WebSocket;
    if (!Ctor) throw new Error("no WebSocket implementation: pass options.WebSocket (e.g. from 'ws')");
    const token = typeof this.options.token === "string" ? this.options.token : await this.options.token();
    const socket = new Ctor(url);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => {
      const hello = {
        type: "hello",
        protocol: PROTOCOL_VERSION,
        token,
        ...(this.resume ? { resume: this.resume } : {}),
      };
      socket.send(encodeFrame(hello, this.encoding()));
    };
    socket.onmessage = (ev) => {
      this.onFrame(ev.data);
    };
    socket.onerror = () => undefined;
    socket.onclose = (ev) => {
      this.onClose(socket, ev.code, ev.reason);
    };
  }

  private onClose(socket: SocketLike, code: number, reason: string): void {
    if (this.socket !== socket) return;
    this.socket = null;
    const wasReady = this.welcomed;
    this.welcomed = false;
    if (this.closedByUser || finalCloses.has(code)) {
      const error = new FoyerError(
        code === CloseCodes.UNAUTHORIZED.code ? "UNAUTHORIZED" : "UNAVAILABLE",
        reason,
      );
      for (const w of this.connectWaiters.splice(0)) w.reject(error);
      for (const id of [...this.pending.keys()]) this.settle(id, error);
      this.emit("closed", { code, reason });
      return;
    }
    if (wasReady) this.emit("disconnected", { code, reason });
    this.urlIndex++;
    const min = this.options.reconnectMinMs ?? 50;
    const max = this.options.reconnectMaxMs ?? 2_000;
    const delay = Math.min(max, min * 2 ** Math.min(this.attempts++, 10)) * (0.5 + Math.random() / 2);
    setTimeout(() => {
      if (!this.closedByUser && !this.socket) void this.open();
    }, delay);
  }

  private onFrame(data: unknown): void {
    const raw = typeof data === "string" ? data : new Uint8Array(data as ArrayBuffer);
    const decoded = this.options.validate === true ? decodeServerFrame(raw) : readServerFrame(raw);
    if (!decoded.ok) return;
    this.dispatch(decoded.frame);
  }

  private dispatch(frame: ServerFrame): void {
    switch (frame.type) {
      case "welcome":
        this.welcomed = true;
        this.attempts = 0;
        this.resume = frame.resume;
        this.player = frame.player.id;
        for (const w of this.connectWaiters.splice(0)) w.resolve();
        this.emit("connected", { resumed: frame.resumed, node: frame.node });
        for (const entry of this.pending.values()) this.transmit(entry.frame);
        return;
      case "result":
        this.settle(frame.id, { value: frame.value });
        return;
      case "error":
        this.onError(frame);
        return;
      case "lobby":
        if (!this.epochs.admit(frame)) return;
        this.onLobby(frame);
        return;
      case "room":
        if (this.epochs.admit(frame)) this.emit("room", frame);
        return;
      case "turn":
      case "paused":
      case "resumed":
      case "checksum":
      case "desync":
      case "chat":
        if (this.epochs.admit(frame)) this.emit("roomEvent", frame);
        return;
      case "redirect":
      case "moved":
        this.redirectTo = frame.url;
        this.socket?.close(4998, "following redirect");
        return;
      case "serverDraining":
        this.emit("serverDraining", undefined);
        return;
      case "pong":
        return;
    }
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

  private onError(frame: Extract<ServerFrame, { type: "error" }>): void {
    const id = frame.id;
    if (id === undefined) return;
    const entry = this.pending.get(id);
    if (!entry) return;
    const error = new FoyerError(frame.code, frame.message, frame.retryAfterMs);
    const wait = frame.retryAfterMs ?? 100;
    if (!error.retryable || Date.now() + wait >= entry.deadline) {
      this.settle(id, error);
      return;
    }
    setTimeout(() => {
      if (this.pending.get(id) === entry) this.transmit(entry.frame);
    }, wait);
  }
}
