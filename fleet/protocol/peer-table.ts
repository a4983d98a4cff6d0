import type { NodeIdentity } from "./claim.ts";
import type { KvBucket, KvEntry } from "../kv.ts";
import { isKvError, isWrongRevision } from "../kv-error.ts";
import type { MembershipTiming } from "./membership-timing.ts";
import {
  type Heartbeat,
  type NodeRecord,
  decodeNodeRecordOrNull,
  encodeNodeRecord,
  isTombstone,
} from "./node-record.ts";

/** How a node's owner looks from here. */
export type OwnerState =
  /** Heartbeating. */
  | "live"
  /** Silent for a while, not yet declared dead: its keys wait (`UNAVAILABLE`), nobody takes them. */
  | "suspected"
  /** Tombstoned, or replaced by a newer incarnation: its keys may be taken over. */
  | "dead"
  /** Never seen (yet). */
  | "unknown";

/** A peer as this node sees it. */
export interface PeerView {
  readonly node: string;
  readonly incarnation: string;
  /** The last heartbeat read, or null once tombstoned. */
  readonly heartbeat: Heartbeat | null;
  readonly state: OwnerState;
  /**
   * Monotonic time its heartbeat was last heard (or its silence started being counted), on the clock
   * membership counts silence on: a gateway redirects to no owner whose heartbeat went stale.
   */
  readonly heardAt?: number;
}

interface Peer {
  incarnation: string;
  revision: number;
  heartbeat: Heartbeat | null;
  /** Monotonic time its heartbeat last moved (or counting restarted). */
  heardAt: number;
  dead: boolean;
}

/** What a PeerTable reads, writes and tells; Membership hands in its own. */
export interface PeerTableOptions {
  /** The `nodes` bucket; node ids are its keys. */
  readonly nodes: KvBucket;
  /** This node: its own record is never a peer's. */
  readonly node: string;
  readonly timing: Required<MembershipTiming>;
  /** A clock that never jumps: silence is counted on it. */
  readonly monotonic: () => number;
  /** Whether this node is fenced now: a fenced node hears nothing and declares nobody dead. */
  readonly fenced: () => boolean;
  /** A peer incarnation is dead (tombstoned here, seen tombstoned, or seen replaced). */
  readonly peerDead: (peer: NodeIdentity) => void;
}

/**
 * The peers side of membership: every peer's last record, the silence counted since it was heard —
 * only while this node's own heartbeat rounds succeed — and the tombstone written over a peer silent
 * for the failure timeout.
 */
export class PeerTable {
  private readonly options: PeerTableOptions;
  private readonly peers = new Map<string, Peer>();
  /** Dead incarnations seen, as `node/incarnation`. */
  private readonly deadIncarnations = new Set<string>();
  /** Monotonic time of the last heartbeat round whose write and read both succeeded. */
  private lastGoodRound: number | undefined;
  /** Peers a tombstone is being written for. */
  private readonly declaring = new Set<string>();
  /**
   * Whether the table holds every peer's latest record: true after a full read, false again after a
   * reset or a delivery dropped while fenced. Only a complete table can be kept current by the watch alone.
   */
  private holdsEveryRecord = false;

  constructor(options: PeerTableOptions) {
    this.options = options;
  }

  /** An earlier incarnation of this node, taken over by `join`: dead from now on, nobody told. */
  replaced(incarnation: string): void {
    this.deadIncarnations.add(`${this.options.node}/${incarnation}`);
  }

  /** Forgets every peer and the rounds counted (a rejoin starts over); dead incarnations stay dead. */
  reset(): void {
    this.peers.clear();
    this.lastGoodRound = undefined;
    this.holdsEveryRecord = false;
  }

  /** True once a full read filled the table, and as long as nothing since was dropped unread. */
  get complete(): boolean {
    return this.holdsEveryRecord;
  }

  /** A heartbeat round failed: the silence of peers is no longer counted continuously. */
  roundFailed(): void {
    this.lastGoodRound = undefined;
  }

  /**
   * A peer's record as the watch delivers it. A tombstone written by another observer is a death
   * declared: taken at once, so every survivor starts taking the dead node's keys together rather than
   * at its next round. A heartbeat is heard when it lands, so silence is counted from the peer's last
   * write; a peer first seen here (it just joined, or came back as a new incarnation) is learned too. The
   * watch is the table's only news between full reads: Membership checks each round that it still
   * delivers (see `Membership.tick`), and reads every record when it does not.
   */
  heard(entry: KvEntry): void {
    if (entry.key === this.options.node || entry.operation !== "PUT") return;
    if (this.options.fenced()) {
      // Dropped unread: the table no longer holds every latest record (a rejoin resets it anyway).
      this.holdsEveryRecord = false;
      return;
    }
    const record = decodeNodeRecordOrNull(entry.value);
    if (record === null) return;
    this.learn(entry.key, entry.revision, record, this.options.monotonic());
  }

  /**
   * A quarter heartbeat, or less when a peer's silence reaches the failure timeout sooner: the check then
   * runs as it does, not up to a quarter heartbeat later, and the dead node's keys move that much sooner.
   */
  nextCheckInMs(): number {
    const { timing } = this.options;
    const now = this.options.monotonic();
    let wait = timing.heartbeatMs / 4;
    for (const peer of this.peers.values()) {
      if (peer.dead) continue;
      const left = timing.failureTimeoutMs - this.silence(peer, now);
      // A peer already past it is being declared, or waits for this node's own rounds to succeed again.
      if (left > 0) wait = Math.min(wait, Math.ceil(left) + 1);
    }
    return wait;
  }

  /**
   * Between rounds, four times a heartbeat and when a peer's silence is due: a peer silent for the failure timeout is declared dead now
   * rather than at the next round (up to a heartbeat later). The same rule as the rounds': silence counts
   * only while this node's own rounds succeed, one heartbeat apart; the tombstone is a CAS on the
   * peer's record as last read, so a peer that wrote since (heard late) lives.
   */
  checkSilence(): void {
    if (this.options.fenced()) return;
    const { timing } = this.options;
    const now = this.options.monotonic();
    const continuous = this.lastGoodRound !== undefined && now - this.lastGoodRound <= 2 * timing.heartbeatMs;
    if (!continuous) return;
    for (const [node, peer] of this.peers) {
      if (peer.dead || this.declaring.has(node)) continue;
      if (this.silence(peer, now) < timing.failureTimeoutMs) continue;
      this.declaring.add(node);
      void this.declareDead(node, peer).finally(() => this.declaring.delete(node));
    }
  }

  /**
   * A round whose heartbeat landed and whose view is current without reading: the watch delivered every
   * write up to this round's own (Membership checks that). Silence is settled as after a full read.
   */
  async watched(now: number): Promise<void> {
    this.roundSucceeded(now);
    const silent = [...this.peers].filter(([, peer]) => this.silentTooLong(peer, now));
    await Promise.all(silent.map(([node, peer]) => this.declareDead(node, peer)));
  }

  /** Reads every peer's record; false when the read failed (silence is then not counted). */
  async observe(now: number): Promise<boolean> {
    const { nodes } = this.options;
    let entries: (KvEntry | null)[];
    try {
      const keys = await nodes.keys();
      entries = await Promise.all(keys.filter((k) => k !== this.options.node).map((k) => nodes.get(k)));
    } catch (error) {
      if (isKvError(error)) return false;
      throw error;
    }
    this.roundSucceeded(now);
    const silent: [string, Peer][] = [];
    for (const entry of entries) {
      if (entry === null) continue;
      const record = decodeNodeRecordOrNull(entry.value);
      if (record === null) continue;
      const peer = this.learn(entry.key, entry.revision, record, now);
      if (this.silentTooLong(peer, now)) silent.push([entry.key, peer]);
    }
    if (!this.options.fenced()) this.holdsEveryRecord = true;
    await Promise.all(silent.map(([node, peer]) => this.declareDead(node, peer)));
    return true;
  }

  /**
   * Silence counts only across rounds that all succeeded, one heartbeat apart: after our own failure or
   * a pause of this process, every peer's count starts over.
   */
  private roundSucceeded(now: number): void {
    const continuous =
      this.lastGoodRound !== undefined && now - this.lastGoodRound <= 2 * this.options.timing.heartbeatMs;
    this.lastGoodRound = now;
    if (!continuous) for (const peer of this.peers.values()) peer.heardAt = now;
  }

  private silentTooLong(peer: Peer, now: number): boolean {
    return !peer.dead && this.silence(peer, now) >= this.options.timing.failureTimeoutMs;
  }

  /** How a peer's process `owner` looks from here (never this node's own: Membership answers that). */
  stateOf(owner: NodeIdentity): OwnerState {
    if (this.deadIncarnations.has(`${owner.node}/${owner.incarnation}`)) return "dead";
    const peer = this.peers.get(owner.node);
    if (peer === undefined) return "unknown";
    // An incarnation we never saw: an older one replaced before we looked (dead), or — when the record we
    // hold is a tombstone — most likely the one that rejoined after it and is not read yet: not ours to take.
    if (peer.incarnation !== owner.incarnation) return peer.dead ? "unknown" : "dead";
    if (peer.dead) return "dead";
    const silence = this.silence(peer, this.options.monotonic());
    return silence >= this.options.timing.suspectAfterMs ? "suspected" : "live";
  }

  /** The peers that are live, in the order first seen. */
  liveNodes(): string[] {
    const live: string[] = [];
    for (const [node, peer] of this.peers) {
      if (this.stateOf({ node, incarnation: peer.incarnation }) === "live") live.push(node);
    }
    return live;
  }

  /** Whether `node`'s last heartbeat said it is draining. */
  isDraining(node: string): boolean {
    return this.peers.get(node)?.heartbeat?.draining === true;
  }

  /** Every peer seen, with its last heartbeat. */
  views(): PeerView[] {
    return [...this.peers].map(([node, peer]) => ({
      node,
      incarnation: peer.incarnation,
      heartbeat: peer.heartbeat,
      state: this.stateOf({ node, incarnation: peer.incarnation }),
      heardAt: peer.heardAt,
    }));
  }

  /** Folds one peer record into the view; reports incarnations that are gone. */
  private learn(node: string, revision: number, record: NodeRecord, now: number): Peer {
    let peer = this.peers.get(node);
    // A round's read that answers after the watch delivered a newer record (a tombstone) is stale:
    // taken, it would bring a dead incarnation back and make its successor look replaced.
    if (peer !== undefined && peer.revision >= revision) return peer;
    if (peer?.dead === false && peer.incarnation !== record.incarnation) {
      this.markDead({ node, incarnation: peer.incarnation });
    }
    const heartbeat = isTombstone(record) ? null : record;
    peer = { incarnation: record.incarnation, revision, heartbeat, heardAt: now, dead: isTombstone(record) };
    this.peers.set(node, peer);
    if (peer.dead) this.markDead({ node, incarnation: record.incarnation });
    return peer;
  }

  /** Writes a tombstone over a silent peer's heartbeat; if the peer moved meanwhile, it lives. */
  private async declareDead(node: string, peer: Peer): Promise<void> {
    const tombstone = encodeNodeRecord({ dead: true, incarnation: peer.incarnation, by: this.options.node });
    try {
      peer.revision = await this.options.nodes.update(node, tombstone, peer.revision);
    } catch (error) {
      if (!isKvError(error)) throw error;
      // The record moved since we heard it: read what it is now (rounds read no record while the watch
      // delivers, and a write the watch missed would otherwise fail this tombstone again and again).
      if (isWrongRevision(error)) await this.readAfresh(node);
      return; // it heartbeated, or someone else declared it (or the outcome is unknown)
    }
    peer.dead = true;
    peer.heartbeat = null;
    this.markDead({ node, incarnation: peer.incarnation });
  }

  /** Reads `node`'s record now and folds it in; a failed read leaves it to the next round. */
  private async readAfresh(node: string): Promise<void> {
    let entry: KvEntry | null;
    try {
      entry = await this.options.nodes.get(node);
    } catch (error) {
      if (isKvError(error)) return;
      throw error;
    }
    const record = entry === null ? null : decodeNodeRecordOrNull(entry.value);
    if (entry === null || record === null || this.options.fenced()) return;
    this.learn(node, entry.revision, record, this.options.monotonic());
  }

  private markDead(peer: NodeIdentity): void {
    const id = `${peer.node}/${peer.incarnation}`;
    if (this.deadIncarnations.has(id)) return;
    this.deadIncarnations.add(id);
    this.options.peerDead(peer);
  }

  private silence(peer: Peer, now: number): number {
    return now - peer.heardAt;
  }
}
