import type { Outbox, StampedFrame } from "../../actors/runtime/index.ts";
import { encodeFrame, type Encoding } from "../protocol/codec.ts";
import { fromLobbyLeftBehind, trackPushed } from "./track-pushed.ts";
import type { Session } from "./session.ts";
import { SessionsByKey } from "./sessions-by-key.ts";

/**
 * Every session of this node, by id and by player; the newest login of a player wins. It is also the
 * runtime's Outbox: frames pushed to players reach their sockets here, encoded once per encoding.
 */
export class SessionRegistry implements Outbox {
  private readonly byId = new Map<string, Session>();
  private readonly byPlayer = new Map<string, Session>();
  private readonly byKey = new SessionsByKey((session, key) => {
    this.enteredKey(session, key);
  });
  /**
   * Keys that moved from this node to another (a drain), and their new owner's URL. A session can still
   * enter one after its members here were told `moved`: a join the frozen lobby buffered, or one that was
   * on its way to it, is answered by the new owner once the move is through. Kept until the node resets
   * (a draining node takes no keys, so none comes back while it runs).
   */
  private readonly movedAway = new Map<string, string>();
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
    this.movedAway.set(key, url);
    let told = 0;
    for (const session of this.byKey.of(key)) if (this.handOff(session, key, url)) told++;
    return told;
  }

  /** Forgets the keys that moved away (the node restarts empty, and may own any key again). */
  forgetMoves(): void {
    this.movedAway.clear();
  }

  /**
   * A session entered `key`: if the key moved away, it is sent after its members, as `moveAway` sent
   * them. Without this, a member whose join was answered during the move stayed on this node, heard its
   * lobby only while the new owner relayed it (`--relay-after-move-ms`), and then nothing.
   */
  private enteredKey(session: Session, key: string): void {
    const url = this.movedAway.get(key);
    if (url === undefined || session.handedOff?.includes(key) === true) return;
    this.handOff(session, key, url);
  }

  /** One session in `key`, which moved to `url`: told `moved` if connected (true), else let go of it. */
  private handOff(session: Session, key: string, url: string): boolean {
    if (session.socket) {
      session.handedOff = [...(session.handedOff ?? []), key];
      session.send({ type: "moved", key, url });
      return true;
    }
    if (session.lobby === key) session.lobby = null;
    if (session.activity === key) session.activity = null;
    if (session.room === key) session.room = null;
    return false;
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
      trackPushed(session, frame);
      const socket = session.socket;
      if (!socket) continue;
      const data = (encoded[socket.encoding] ??= encodeFrame(frame, socket.encoding));
      socket.send(data);
    }
  }
}
