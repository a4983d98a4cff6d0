import { encodeFrame, type Encoding } from "../protocol/codec.ts";

/** What `located` holds once its lookup settled: one promise for every session, not one each. */
const settled: Promise<void> = Promise.resolve();

/** What `heldDisconnects` shows while none is held. */
const noneHeld: ReadonlySet<string> = new Set();

/** The socket side of a session, as the registry needs it. */
export interface SessionSocket {
  readonly encoding: Encoding;
  send(data: Uint8Array | string): void;
  close(code: number, reason: string): void;
  /** Bytes queued on the socket and not yet sent (a download waits while it is backed up). */
  bufferedBytes?(): number;
}

/** Kept told of a registered session's keys as they change (the registry's index by key). */
export interface KeyIndex {
  /** One of the session's keys changed from `was` to `now`. */
  moved(session: Session, was: string | null, now: string | null): void;
}

/**
 * A player's connection identity. It survives reconnects (its resume token names it), so the request
 * ids it used stay meaningful to the actors that keep their results.
 */
export class Session {
  socket: SessionSocket | null = null;
  /** The registry's index of sessions by the keys they are in, while the session is registered. */
  keyIndex: KeyIndex | null = null;
  #lobby: string | null = null;
  #activity: string | null = null;
  #room: string | null = null;
  /** The lobby the player is in, as far as this gateway knows (`lobby/CODE`). */
  get lobby(): string | null {
    return this.#lobby;
  }
  set lobby(key: string | null) {
    const was = this.#lobby;
    this.#lobby = key;
    this.keyIndex?.moved(this, was, key);
  }
  /** The lobby the player was in last: a request re-sent after its answer was lost goes there. */
  lastLobby: string | null = null;
  /**
   * The lobby a join or create of this session is entering now: its first frames may beat the answer,
   * and a disconnect another node tells about the player's old socket is stale meanwhile
   * (fleet/node-endpoint.ts, `staleDisconnect`).
   */
  entering: string | null = null;
  /** The room a join of this session is entering now (see `entering`). */
  enteringRoom: string | null = null;
  /** See `heldDisconnects`: null while none is held, as for nearly every session. */
  #held: Set<string> | null = null;
  /**
   * Keys this session was entering when another node told one of them the player's old socket there
   * closed: dropped as stale (fleet/node-endpoint.ts), and told after all if the entry fails
   * (`enteredOrNot`). Made on the first one held: a Set per seated session cost 150 bytes for a case
   * a failover's resume race alone brings about.
   */
  get heldDisconnects(): ReadonlySet<string> {
    return this.#held ?? noneHeld;
  }
  /** Holds a disconnect told about `key` (see `heldDisconnects`). */
  holdDisconnect(key: string): void {
    (this.#held ??= new Set()).add(key);
  }
  /** Lets go of the disconnect held for `key`; true when one was held. */
  releaseDisconnect(key: string): boolean {
    const held = this.#held;
    if (held?.delete(key) !== true) return false;
    if (held.size === 0) this.#held = null;
    return true;
  }
  /** Lets go of every held disconnect. */
  releaseDisconnects(): void {
    this.#held = null;
  }
  /** The room the player is seated in (`room/CODE`): its lobby's room, or one it created or joined. */
  get room(): string | null {
    return this.#room;
  }
  set room(key: string | null) {
    const was = this.#room;
    this.#room = key;
    this.keyIndex?.moved(this, was, key);
  }
  /**
   * `room` was created or joined directly (`createRoom`, `joinRoom`), not started by the player's lobby:
   * the lobby's frames then leave it alone, and `leaveRoom` may leave it.
   */
  directRoom = false;
  /** The room the player was seated in last (a finish re-sent after the room ended). */
  lastRoom: string | null = null;
  /** The activity lobby the player is in, as far as this gateway knows (`activityLobby/<id>/<n>`). */
  get activity(): string | null {
    return this.#activity;
  }
  set activity(key: string | null) {
    const was = this.#activity;
    this.#activity = key;
    this.keyIndex?.moved(this, was, key);
  }
  /**
   * Keys that moved to another node while this socket stayed here (a drain): the session still sends
   * their requests, which the router forwards to the new owner, until the SDK has moved over (make before
   * break). Its socket closing does not report the player gone from them: it is on its way to their
   * owner. Null (the usual case) when none did.
   */
  handedOff: string[] | null = null;
  /** When the socket went away (wall ms), for expiring detached sessions. */
  detachedAt = 0;
  #located: Promise<void> = settled;
  /**
   * Settles once the gateway has asked the player's registry which lobby the player is in (after each
   * hello). Requests wait for it: a `leave` sent right after a fresh login must find the lobby, not
   * answer "not in a lobby" because the lookup was still on its way. Once it settles, the session holds
   * the one shared settled promise instead of its own.
   */
  get located(): Promise<void> {
    return this.#located;
  }
  set located(lookup: Promise<void>) {
    this.#located = lookup;
    if (lookup === settled) return;
    const done = (): void => {
      if (this.#located === lookup) this.#located = settled;
    };
    void lookup.then(done, done);
  }

  constructor(
    readonly id: string,
    readonly player: string,
    public name: string,
  ) {}

  /** The lobby, activity lobby and room the session is in, those it is in at all. */
  keys(): string[] {
    const keys: string[] = [];
    if (this.#lobby !== null) keys.push(this.#lobby);
    if (this.#activity !== null) keys.push(this.#activity);
    if (this.#room !== null) keys.push(this.#room);
    return keys;
  }

  /** Sends an already encoded frame, or nothing when detached. */
  send(frame: object): void {
    this.socket?.send(encodeFrame(frame, this.socket.encoding));
  }
}
