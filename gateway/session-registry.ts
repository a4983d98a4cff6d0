import { isRetryable, type AskResult, type Outbox, type StampedFrame } from "../actors/runtime/index.ts";
import { encodeFrame, type Encoding } from "./protocol/codec.ts";

/** Where a session's news goes: the runtime's `tell`. */
interface Teller {
  tell(key: string, message: unknown): void;
}

/** What a key is told when the session's player is no longer connected to it. */
export function disconnected(session: Session): { type: "connection"; player: string; connected: false } {
  return { type: "connection", player: session.player, connected: false };
}

/**
 * Whether a disconnect another node tells `key` about `session`'s player is stale (fleet/node-endpoint.ts,
 * `staleDisconnect`): the session is live here and in `key`, or entering it. One dropped while the session
 * is only entering `key` is held until the entry ends (`enteredOrNot`).
 */
export function inKeyHere(session: Session | undefined, key: string): boolean {
  if (session?.socket == null) return false;
  if (session.keys().includes(key)) return true;
  if (session.entering !== key && session.enteringRoom !== key) return false;
  session.heldDisconnects.add(key);
  return true;
}

/**
 * Ends an entry of `session` into `key` (a lobby join or create, a room join), once its answer has been
 * applied. A disconnect another node told `key` about the player's old socket while the session was
 * entering it was dropped as stale; if the session did not end up in `key` after all (the join failed),
 * nothing here would ever report the player gone from it, so `key` hears it now. A failure that may yet
 * turn out otherwise — retryable (the SDK sends the join again) or of unknown outcome (a timeout) —
 * keeps the disconnect held: for the retried join, or for the socket's close (`heldOnClose`).
 */
export function enteredOrNot(session: Session, key: string, result: AskResult, system: Teller): void {
  if (!session.heldDisconnects.has(key)) return;
  if (session.keys().includes(key)) {
    session.heldDisconnects.delete(key);
    return;
  }
  if (result.ok || isRetryable(result.code) || result.code === "TIMEOUT") return;
  session.heldDisconnects.delete(key);
  system.tell(key, disconnected(session));
}

/**
 * The held disconnects of a session whose socket closed, for keys it is not in: told now (the close
 * reports the keys it is in). The session holds none afterwards.
 */
export function heldOnClose(session: Session, system: Teller): void {
  const keys = session.keys();
  for (const key of session.heldDisconnects) if (!keys.includes(key)) system.tell(key, disconnected(session));
  session.heldDisconnects.clear();
}

/** The socket side of a session, as the registry needs it. */
export interface SessionSocket {
  readonly encoding: Encoding;
  send(data: Uint8Array | string): void;
  close(code: number, reason: string): void;
  /** Bytes queued on the socket and not yet sent (a download waits while it is backed up). */
  bufferedBytes?(): number;
}

/**
 * A player's connection identity. It survives reconnects (its resume token names it), so the request
 * ids it used stay meaningful to the actors that keep their results.
 */
export class Session {
  socket: SessionSocket | null = null;
  /** The registry's index of sessions by the keys they are in, while the session is registered. */
  keyIndex: SessionsByKey | null = null;
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
  /**
   * Keys this session was entering when another node told one of them the player's old socket there
   * closed: dropped as stale (fleet/node-endpoint.ts), and told after all if the entry fails
   * (`enteredOrNot`).
   */
  readonly heldDisconnects = new Set<string>();
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
  /**
   * Settles once the gateway has asked the player's registry which lobby the player is in (after each
   * hello). Requests wait for it: a `leave` sent right after a fresh login must find the lobby, not
   * answer "not in a lobby" because the lookup was still on its way.
   */
  located: Promise<void> = Promise.resolve();

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

/**
 * The registered sessions by each lobby, activity lobby and room they are in, kept by the sessions'
 * setters: a key that moves away finds its sessions without walking every session of the node (a drain
 * of 10,000 lobbies walked 10,000 sessions for each, and that was a third of the drained node's CPU).
 */
export class SessionsByKey {
  private readonly byKey = new Map<string, Set<Session>>();

  /** The sessions in `key`. */
  of(key: string): readonly Session[] {
    const sessions = this.byKey.get(key);
    return sessions === undefined ? [] : [...sessions];
  }

  add(session: Session): void {
    for (const key of session.keys()) this.enter(session, key);
  }

  remove(session: Session): void {
    for (const key of session.keys()) this.leave(session, key);
  }

  /** One of the session's keys changed from `was` to `now`. */
  moved(session: Session, was: string | null, now: string | null): void {
    if (was === now) return;
    // Lobby, activity and room keys differ by their prefixes, so no other field of the session holds `was`.
    if (was !== null && !session.keys().includes(was)) this.leave(session, was);
    if (now !== null) this.enter(session, now);
  }

  private enter(session: Session, key: string): void {
    let sessions = this.byKey.get(key);
    if (sessions === undefined) this.byKey.set(key, (sessions = new Set()));
    sessions.add(session);
  }

  private leave(session: Session, key: string): void {
    const sessions = this.byKey.get(key);
    if (sessions === undefined) return;
    sessions.delete(session);
    if (sessions.size === 0) this.byKey.delete(key);
  }
}

/**
 * Every session of this node, by id and by player; the newest login of a player wins. It is also the
 * runtime's Outbox: frames pushed to players reach their sockets here, encoded once per encoding.
 */
export class SessionRegistry implements Outbox {
  private readonly byId = new Map<string, Session>();
  private readonly byPlayer = new Map<string, Session>();
  private readonly byKey = new SessionsByKey();
  /**
   * The URL clients reach this node at, added to `activityTransfer` frames as `url` (set once the
   * gateway listens). A single node runs the rooms its activity lobbies start, so it is this node's.
   */
  publicUrl = "";

  get(id: string): Session | undefined {
    return this.byId.get(id);
  }

  ofPlayer(player: string): Session | undefined {
    return this.byPlayer.get(player);
  }

  /** Adds a session; returns the older session of the same player that it replaces, if any. */
  add(session: Session): Session | undefined {
    const older = this.byPlayer.get(session.player);
    const same = this.byId.get(session.id);
    if (same !== undefined && same !== session) this.unindex(same);
    this.byId.set(session.id, session);
    if (session.keyIndex !== this.byKey) {
      session.keyIndex = this.byKey;
      this.byKey.add(session);
    }
    this.byPlayer.set(session.player, session);
    return older && older !== session ? older : undefined;
  }

  remove(session: Session): void {
    if (this.byId.get(session.id) !== session) return;
    this.byId.delete(session.id);
    this.unindex(session);
    if (this.byPlayer.get(session.player) === session) this.byPlayer.delete(session.player);
  }

  private unindex(session: Session): void {
    if (session.keyIndex !== this.byKey) return;
    this.byKey.remove(session);
    session.keyIndex = null;
  }

  /** Drops sessions detached for longer than `maxAgeMs`; returns how many. */
  expire(now: number, maxAgeMs: number): number {
    let dropped = 0;
    for (const session of this.byId.values()) {
      if (!session.socket && now - session.detachedAt > maxAgeMs) {
        this.remove(session);
        dropped++;
      }
    }
    return dropped;
  }

  get size(): number {
    return this.byId.size;
  }

  /** Number of sessions with a live socket. */
  get connected(): number {
    let n = 0;
    for (const s of this.byId.values()) if (s.socket) n++;
    return n;
  }

  /**
   * `key` moved to the node at `url`: every session here that is in it is told `moved { key, url }`. The
   * SDK opens a socket there and resumes, and meanwhile goes on sending over this one: a connected
   * session keeps `key` (its requests are forwarded to the new owner) and marks it handed off, so its
   * socket closing behind the move is not reported to the lobby as a drop. A detached session lets go of
   * it: its player comes back through its registry, which names the new owner.
   */
  moveAway(key: string, url: string): number {
    // A player's record is nobody's lobby, activity lobby or room: no session to walk for it (a drain
    // moves one per player, and walking every session for each was a tenth of the source's CPU).
    if (key.startsWith("player/")) return 0;
    let told = 0;
    for (const session of this.byKey.of(key)) {
      if (session.socket) {
        session.handedOff = [...(session.handedOff ?? []), key];
        session.send({ type: "moved", key, url });
        told++;
        continue;
      }
      if (session.lobby === key) session.lobby = null;
      if (session.activity === key) session.activity = null;
      if (session.room === key) session.room = null;
    }
    return told;
  }

  /** Sessions still connected here with a key handed off to another node (a drain waits for them to go). */
  get handedOffConnected(): number {
    let n = 0;
    for (const s of this.byId.values()) if (s.socket && s.handedOff !== null) n++;
    return n;
  }

  /**
   * The node started draining: members of a lobby with no room running are told `serverDraining`, a
   * batch of sessions per event-loop turn. Told all at once, the 4,000 members of a bench's node held
   * its loop — every lobby's requests and writes — for 120 ms. Resolves once every batch is sent.
   */
  async notifyDraining(batch = 64): Promise<void> {
    const frame = { type: "serverDraining" };
    let sent = 0;
    for (const session of [...this.byId.values()]) {
      // A member whose lobby already moved (the batches take a while) has heard `moved`; nothing follows.
      if (session.socket && session.lobby !== null && session.room === null && session.handedOff === null) {
        session.send(frame);
        if (++sent % batch === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }

  /** Players with a live socket here: a lobby restored on this node counts them as connected. */
  connectedPlayers(): string[] {
    const players: string[] = [];
    for (const [player, session] of this.byPlayer) if (session.socket) players.push(player);
    return players;
  }

  /**
   * The players an actor restored here as `key` counts as connected: every player with a live socket,
   * but for a player's record (`player/<id>`) only that player. Listing every session for each record
   * made restoring a drain's thousands of records on a node of thousands of sessions quadratic (a tenth
   * of the target's CPU went there).
   */
  connectedFor(key: string): string[] {
    if (!key.startsWith("player/")) return this.connectedPlayers();
    const player = key.slice("player/".length);
    return this.byPlayer.get(player)?.socket ? [player] : [];
  }

  /** Number of sessions whose player is in a lobby, private or activity, as far as this gateway knows. */
  get inLobby(): number {
    let n = 0;
    for (const s of this.byId.values()) if (s.lobby !== null || s.activity !== null) n++;
    return n;
  }

  push(players: readonly string[], pushed: StampedFrame): void {
    const frame = pushed.type === "activityTransfer" ? { ...pushed, url: this.publicUrl } : pushed;
    const encoded: Partial<Record<Encoding, Uint8Array | string>> = {};
    for (const player of players) {
      const session = this.byPlayer.get(player);
      if (!session) continue;
      if (fromLobbyLeftBehind(session, frame)) continue;
      this.track(session, frame);
      const socket = session.socket;
      if (!socket) continue;
      const data = (encoded[socket.encoding] ??= encodeFrame(frame, socket.encoding));
      socket.send(data);
    }
  }

  /** Keeps the session's idea of its lobby, activity lobby and room current from the frames it is sent. */
  private track(session: Session, frame: StampedFrame): void {
    if (frame.type === "room") {
      // The final frame of an ended room: the player is seated nowhere now.
      if (frame.key === session.room && frame.ended === true) {
        session.lastRoom = session.room;
        session.room = null;
        session.directRoom = false;
      } else if (session.room === null && frame.ended !== true && frame.direct === true) {
        // A room created directly seats this player and runs here (taken over after a failover, say):
        // the session learns its room from the room itself, so its requests (the answer to the room's
        // `turnsWanted` first) reach it before the SDK's own rejoin is through.
        session.room = frame.key;
        session.directRoom = true;
      }
      return;
    }
    if (frame.type === "activity") {
      // Its own PLAYER_REMOVED is the last frame a player hears from an activity lobby it left.
      if (
        frame.key === session.activity &&
        frame.event === "PLAYER_REMOVED" &&
        frame.player === session.player
      )
        session.activity = null;
      return;
    }
    if (frame.type !== "lobby" || frame.key !== session.lobby) return;
    const members = frame.members as readonly { player: string; inRoom: boolean }[];
    const me = members.find((m) => m.player === session.player);
    const room = frame.room as { code: string } | null;
    const lobbyRoom = room && me?.inRoom === true ? `room/${room.code}` : null;
    if (!me) {
      session.lastLobby = session.lobby;
      session.lobby = null;
    }
    // A room the player created or joined directly is not the lobby's to clear; a lobby start seats it anew.
    if (session.directRoom && lobbyRoom === null) return;
    if (session.room) session.lastRoom = session.room;
    session.room = lobbyRoom;
    session.directRoom = false;
  }
}

/**
 * A frame of a lobby other than the one this session is in (or entering). The player moved on, and the lobby
 * it left still lists it until its registry's leave reaches it: after a failover, that lobby is restored
 * and heard from before the leave lands, and its frames would show the player a lobby it is not in.
 */
function fromLobbyLeftBehind(session: Session, frame: StampedFrame): boolean {
  return (
    frame.type === "lobby" &&
    session.lobby !== null &&
    frame.key !== session.lobby &&
    frame.key !== session.entering
  );
}
