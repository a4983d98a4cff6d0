import type { RequestFrame } from "../protocol/client-frames.ts";
import type {
  ActivityEventView,
  ActivityTransferView,
  KickedView,
  LobbyChatView,
  LobbyView,
  MatchmakingView,
  RoomEventFrame,
  RoomView,
} from "../protocol/server-frames.ts";

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
  /**
   * A WebSocket ping (a control frame): `ws` in Node has it, browsers do not. When the socket has both
   * `ping` and `on`, the SDK's liveness pings are WebSocket pings, which the node's WebSocket library
   * answers without decoding a Foyer frame; otherwise they are `ping` frames.
   */
  ping?(): void;
  /** `ws`'s control-frame events: a `pong` (the answer to `ping()`) or a `ping` (the node's heartbeat). */
  on?(event: "ping" | "pong", listener: () => void): unknown;
}

/** Options of a FoyerClient. */
export interface FoyerClientOptions {
  /**
   * Bootstrap URLs (`ws://host:port/ws`); the client tries them in turn when it (re)connects, starting
   * from a random other one after it lost a node (with three or more).
   */
  readonly urls: readonly string[];
  /**
   * The player's signed token, or a function that fetches a fresh one (called before every attempt; a
   * function that throws or rejects counts as a failed attempt and is tried again after a backoff).
   */
  readonly token: string | (() => string | Promise<string>);
  /** A WebSocket constructor; defaults to the global one (browsers, Node 22+). */
  readonly WebSocket?: new (url: string) => SocketLike;
  /** How long a call may take, retries included, before it fails with TIMEOUT. Default 10 000. */
  readonly callTimeoutMs?: number;
  /**
   * How long `connect()` waits for a welcome before it rejects with UNAVAILABLE (default 10 000). The
   * client keeps trying in the background until `close()`; an attempt that got no welcome in this time
   * is abandoned and the next URL tried.
   */
  readonly connectTimeoutMs?: number;
  /** Reconnect backoff bounds. */
  readonly reconnectMinMs?: number;
  readonly reconnectMaxMs?: number;
  /**
   * The node's `maxFrameBytes` (default 65 536): the turns the SDK sends back after a failover go in
   * batches of at most half of it, and `uploadBlob` sends chunks that fit it.
   */
  readonly maxFrameBytes?: number;
  /**
   * How long the node may stay silent before the client gives up on its socket (default 45 000 ms, 0 =
   * never). 10 s before that (half-way when it is under 20 s) the client pings the node: a WebSocket
   * ping in Node, a `ping` frame in a browser. A node that answers nothing in time is taken for frozen
   * or gone (a paused process, a machine that lost power: their sockets stay open), and the client
   * reconnects elsewhere with its resume token. In Node the node's own heartbeat (a WebSocket ping every
   * 30 s to an otherwise silent socket) counts as hearing it, so an idle client sends nothing. Lower it
   * to leave a silent node sooner: a lobby member must be back within the seat grace a survivor gives it
   * after a takeover (`--lobby-grace-seconds`, 10 s, from about `--failure-timeout-ms` after the node
   * went silent) to keep its seat; idle clients then cost the node pings of their own (docs/operations.md).
   */
  readonly livenessMs?: number;
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
  /**
   * A relay room's turn, pause, resume, checksum, desync or chat frame. Turns come in order, each once,
   * also across a reconnect (the SDK fetches the ones it missed); `turnsGone` says which the room could
   * no longer send.
   */
  roomEvent: RoomEventFrame;
  /** The player is no longer in the lobby with this code (it left, or was removed). */
  left: { code: string };
  /** The host (or the studio) took this player out of its lobby: why, and whether it is banned. */
  kicked: KickedView;
  /** A chat line of the player's lobby, in the lobby's order (docs/lobbies.md). */
  lobbyChat: LobbyChatView;
  /** An activity lobby's event (PLAYER_ADDED, PHASE_WAIT_READY, …; docs/activity.md), in the lobby's order. */
  activity: ActivityEventView;
  /** The countdown reached 0: go to `room` on the node at `url` with this player's `token`. */
  activityTransfer: ActivityTransferView;
  /**
   * Rating matchmaking (docs/matchmaking.md): a matched lobby's view (`matchedLobby`) and events
   * (`lobbyStarted`, `lobbyRemoved`, `lobbyDisbanded`), the accept phase (`matchFound`, `matchCancelled`,
   * `matchReady`, and `matchRunning` when the player comes back while its match runs) and a search that found nothing (`matchmakingFailed`), on `type`.
   */
  matchmaking: MatchmakingView;
  /** The room's document (docs/rooms.md "Large blobs"), assembled and checked against its SHA-256. */
  blob: { id: string; bytes: Uint8Array; digest: string };
  /** A document could not be fetched or did not match its digest. */
  blobFailed: { id: string; reason: string };
  serverDraining: undefined;
  /**
   * The lobby, activity lobby or room `key` is moving to the node at `url` (a drain). Calls go on
   * meanwhile; a `connected` with the new node follows once the client's second socket is welcomed there.
   */
  moving: { key: string; url: string };
  connected: { resumed: boolean; node: string };
  disconnected: { code: number; reason: string };
  /** The connection ended for good (bad token, replaced by a newer login, or close()). */
  closed: { code: number; reason: string };
}

type Distribute<T> = T extends unknown ? Omit<T, "id" | "ack"> : never;
/** A request as a caller writes it: the client adds the id and the ack. */
export type RequestBody = Distribute<RequestFrame>;
