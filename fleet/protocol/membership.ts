import type { Scheduler } from "../../actors/runtime/index.ts";
import type { NodeIdentity } from "./claim.ts";
import type { KvBucket, KvEntry, KvWatch } from "../kv.ts";
import { isKvError, isTimeout, isUnavailable, isWrongRevision } from "../kv-error.ts";
import {
  type Heartbeat,
  type NodeRecord,
  decodeNodeRecord,
  encodeNodeRecord,
  isTombstone,
} from "./node-record.ts";

/** What a node says about itself in every heartbeat, besides its incarnation. */
export type NodeFacts = Omit<Heartbeat, "incarnation" | "beat">;

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

/** Timing of membership (FLEET-PROTOCOL, "Heartbeats and node death"). */
export interface MembershipTiming {
  /** How often a node writes its heartbeat. Default 1,000 ms. */
  readonly heartbeatMs: number;
  /** Silence after which a peer is declared dead. Default 3,000 ms. */
  readonly failureTimeoutMs: number;
  /** A node acts only while its last good heartbeat is younger than failureTimeout − margin. Default 1,000 ms. */
  readonly leaseMarginMs: number;
  /**
   * Silence after which a peer is suspected (its keys answer UNAVAILABLE). Default half the failure
   * timeout, at least two heartbeats: a heartbeat read late on a busy observer does not suspect a peer.
   */
  readonly suspectAfterMs?: number;
}

export const defaultMembershipTiming: MembershipTiming = {
  heartbeatMs: 1_000,
  failureTimeoutMs: 3_000,
  leaseMarginMs: 1_000,
};

/** What membership tells the node. */
export interface MembershipEvents {
  /** A peer incarnation is dead (this node tombstoned it, saw its tombstone, or saw it replaced). */
  peerDead?(peer: NodeIdentity): void;
  /** This node was declared dead: it must drop every actor at once and rejoin as a new incarnation. */
  fenced?(): void;
  /** A heartbeat round ended (successful or not): a good moment to look for keys to take over. */
  ticked?(): void;
}

export interface MembershipOptions {
  /** The `nodes` bucket; node ids are its keys. */
  readonly nodes: KvBucket;
  readonly node: string;
  /** The first incarnation; `rejoin` takes a new one. */
  readonly incarnation: string;
  /** Wall clock and timers. */
  readonly scheduler: Scheduler;
  /** A clock that never jumps (performance.now on a node; the simulation's own). */
  readonly monotonic: () => number;
  readonly timing?: Partial<MembershipTiming>;
  /** The facts of the next heartbeat (url, load, draining…). */
  readonly facts: () => NodeFacts;
  readonly events?: MembershipEvents;
}

/** How long `join` keeps asking a store that times out or is unavailable before the start fails. */
const joinPatienceMs = 30_000;

/** Thrown by `join` when another live process already runs under this node id. */
export class NodeIdConflictError extends Error {
  constructor(node: string) {
    super(
      `another process is running as node ${node} (its heartbeat is still moving); pick another --node-id`,
    );
    this.name = "NodeIdConflictError";
  }
}

/** A peer as this node sees it. */
export interface PeerView {
  readonly node: string;
  readonly incarnation: string;
  /** The last heartbeat read, or null once tombstoned. */
  readonly heartbeat: Heartbeat | null;
  readonly state: OwnerState;
}

interface Peer {
  incarnation: string;
  revision: number;
  heartbeat: Heartbeat | null;
  /** Monotonic time its heartbeat last moved (or counting restarted). */
  heardAt: number;
  dead: boolean;
}

/**
 * One node's side of membership: compare-and-set heartbeats into `nodes` (no TTL), the lease that
 * decides whether this node may act, and the view of its peers — silence counted only while this node's
 * own heartbeats succeed, death declared by a tombstone written over the silent peer's heartbeat. Pure
 * logic over a KvBucket and clocks, so it runs unchanged on NATS and in the simulation.
 */
export class Membership {
  private readonly nodes: KvBucket;
  private readonly timing: Required<MembershipTiming>;
  private readonly options: MembershipOptions;
  private incarnationId: string;
  private revision = 0;
  private beat = 0;
  /** When the last successful heartbeat was sent, on both clocks. */
  private lease: { mono: number; wall: number } | undefined;
  private isFenced = false;
  private readonly peers = new Map<string, Peer>();
  /** Dead incarnations seen, as `node/incarnation`. */
  private readonly deadIncarnations = new Set<string>();
  /** Monotonic time of the last heartbeat round whose write and read both succeeded. */
  private lastGoodRound: number | undefined;
  private cancelTick: (() => void) | undefined;
  /** Peers' heartbeats and tombstones, heard as they land (the rounds still read every record). */
  private watch: KvWatch | undefined;
  /** The silence check between rounds (see `checkSilence`). */
  private cancelCheck: (() => void) | undefined;
  /** Peers a tombstone is being written for. */
  private readonly declaring = new Set<string>();
  private ticking = false;
  private stopped = true;
  /** Waiting for the lease to come back (or to be lost for good). */
  private leaseWaiters: ((held: boolean) => void)[] = [];

  constructor(options: MembershipOptions) {
    this.options = options;
    this.nodes = options.nodes;
    this.incarnationId = options.incarnation;
    const timing = { ...defaultMembershipTiming, ...options.timing };
    const suspectAfterMs = Math.max(2 * timing.heartbeatMs, timing.failureTimeoutMs / 2);
    this.timing = { ...timing, suspectAfterMs: timing.suspectAfterMs ?? suspectAfterMs };
  }

  get node(): string {
    return this.options.node;
  }

  get incarnation(): string {
    return this.incarnationId;
  }

  get identity(): NodeIdentity {
    return { node: this.options.node, incarnation: this.incarnationId };
  }

  get fenced(): boolean {
    return this.isFenced;
  }

  /**
   * Writes the first heartbeat of this incarnation. A record of another incarnation that is still moving
   * means a second process with this node id: refused with NodeIdConflictError. A still one (the process
   * died) is taken over, which declares that incarnation dead.
   */
  async join(): Promise<void> {
    // A store that does not answer yet (a cluster just started, or electing a leader) is asked again: every
    // step below is safe to repeat, and a create that timed out but landed is found as our own record.
    const giveUpAt = this.options.monotonic() + joinPatienceMs;
    for (let wait = 100; ; wait = Math.min(wait * 2, 2_000)) {
      try {
        await this.joinOnce();
        break;
      } catch (error) {
        if (!(isTimeout(error) || isUnavailable(error)) || this.options.monotonic() >= giveUpAt) throw error;
        await this.sleep(wait);
      }
    }
    this.isFenced = false;
    this.lease = { mono: this.options.monotonic(), wall: this.options.scheduler.now() };
  }

  private async joinOnce(): Promise<void> {
    for (;;) {
      const entry = await this.nodes.get(this.node);
      if (entry === null) {
        try {
          this.revision = await this.nodes.create(this.node, this.encodeHeartbeat());
          return;
        } catch (error) {
          if (isKvError(error) && error.code === "exists") continue;
          throw error;
        }
      }
      const record = decodeOrNull(entry);
      if (record !== null && !isTombstone(record) && record.incarnation !== this.incarnationId) {
        // Still heartbeating? Give it a failure timeout to show it.
        await this.sleep(this.timing.failureTimeoutMs);
        const again = await this.nodes.get(this.node);
        if (again !== null && again.revision !== entry.revision) {
          // Moved by a peer's tombstone (it declared that silent incarnation dead): no second process.
          const moved = decodeOrNull(again);
          if (moved !== null && isTombstone(moved)) continue;
          throw new NodeIdConflictError(this.node);
        }
        this.deadIncarnations.add(`${this.node}/${record.incarnation}`);
      }
      try {
        this.revision = await this.nodes.update(this.node, this.encodeHeartbeat(), entry.revision);
        return;
      } catch (error) {
        if (!isWrongRevision(error)) throw error;
      }
    }
  }

  /** Starts the heartbeat rounds (after `join`). */
  start(): this {
    this.stopped = false;
    this.schedule();
    try {
      this.watch ??= this.nodes.watch({}, (entry) => {
        this.heard(entry);
      });
    } catch (error) {
      // A store that cannot watch (the fleet simulation's): the rounds alone read the records.
      if (!isKvError(error)) throw error;
    }
    this.scheduleCheck();
    return this;
  }

  stop(): void {
    this.stopped = true;
    this.cancelTick?.();
    this.cancelCheck?.();
    this.watch?.stop();
    this.watch = undefined;
    this.settleLeaseWaiters();
  }

  /**
   * A peer's record as the watch delivers it. A tombstone written by another observer is a death
   * declared: taken at once, so every survivor starts taking the dead node's keys together rather than
   * at its next round. A heartbeat is heard when it lands, not up to a round later, so silence is
   * counted from the peer's last write. Peers not read by a round yet are left to the rounds; a watch that
   * goes quiet (NATS-NOTES) only makes heard times a round older, as they were without it.
   */
  private heard(entry: KvEntry): void {
    if (entry.key === this.node || entry.operation !== "PUT" || this.isFenced) return;
    const peer = this.peers.get(entry.key);
    if (peer === undefined || peer.dead || peer.revision >= entry.revision) return;
    const record = decodeOrNull(entry);
    if (record === null) return;
    this.learn(entry.key, entry.revision, record, this.options.monotonic());
  }

  private scheduleCheck(): void {
    if (this.stopped) return;
    const scheduler = this.options.scheduler;
    this.cancelCheck = scheduler.at(scheduler.now() + this.nextCheckInMs(), () => {
      this.checkSilence();
      this.scheduleCheck();
    });
  }

  /**
   * A quarter heartbeat, or less when a peer's silence reaches the failure timeout sooner: the check then
   * runs as it does, not up to a quarter heartbeat later, and the dead node's keys move that much sooner.
   */
  private nextCheckInMs(): number {
    const now = this.options.monotonic();
    let wait = this.timing.heartbeatMs / 4;
    for (const peer of this.peers.values()) {
      if (peer.dead) continue;
      const left = this.timing.failureTimeoutMs - this.silence(peer, now);
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
  private checkSilence(): void {
    if (this.isFenced) return;
    const now = this.options.monotonic();
    const continuous =
      this.lastGoodRound !== undefined && now - this.lastGoodRound <= 2 * this.timing.heartbeatMs;
    if (!continuous) return;
    for (const [node, peer] of this.peers) {
      if (peer.dead || this.declaring.has(node)) continue;
      if (this.silence(peer, now) < this.timing.failureTimeoutMs) continue;
      this.declaring.add(node);
      void this.declareDead(node, peer).finally(() => this.declaring.delete(node));
    }
  }

  /**
   * A clean exit: stops acting and writes a tombstone over this node's own heartbeat, so peers take what
   * is left here at once instead of after the failure timeout. Best effort: without it they still do, later.
   */
  async leave(): Promise<void> {
    this.stop();
    this.isFenced = true;
    this.lease = undefined;
    const tombstone = encodeNodeRecord({ dead: true, incarnation: this.incarnationId, by: this.node });
    try {
      await this.nodes.update(this.node, tombstone, this.revision);
    } catch (error) {
      if (!isKvError(error)) throw error;
    }
  }

  /** After being fenced: a fresh incarnation, heartbeating again with an empty node. */
  async rejoin(incarnation: string): Promise<void> {
    this.incarnationId = incarnation;
    this.beat = 0;
    this.peers.clear();
    this.lastGoodRound = undefined;
    await this.join();
  }

  /** True while this node holds its lease: its last good heartbeat is recent on both clocks. */
  mayAct(): boolean {
    if (this.isFenced || this.lease === undefined) return false;
    const limit = this.timing.failureTimeoutMs - this.timing.leaseMarginMs;
    const mono = this.options.monotonic() - this.lease.mono;
    const wall = this.options.scheduler.now() - this.lease.wall;
    return mono < limit && wall < limit && wall > -limit;
  }

  /** Resolves true once the lease is fresh again, false once this incarnation is fenced (or stopped). */
  leaseSettled(): Promise<boolean> {
    if (this.mayAct()) return Promise.resolve(true);
    if (this.isFenced || this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => this.leaseWaiters.push(resolve));
  }

  private settleLeaseWaiters(): void {
    const held = this.mayAct();
    if (!held && !this.isFenced && !this.stopped) return;
    const waiters = this.leaseWaiters;
    this.leaseWaiters = [];
    for (const resolve of waiters) resolve(held);
  }

  /** How the process `owner` looks from here. */
  ownerState(owner: NodeIdentity): OwnerState {
    if (owner.node === this.node) {
      if (owner.incarnation === this.incarnationId) return this.isFenced ? "dead" : "live";
      return "dead"; // an older process under this node id: this one replaced it
    }
    if (this.deadIncarnations.has(`${owner.node}/${owner.incarnation}`)) return "dead";
    const peer = this.peers.get(owner.node);
    if (peer === undefined) return "unknown";
    // An incarnation we never saw: an older one replaced before we looked (dead), or — when the record we
    // hold is a tombstone — most likely the one that rejoined after it and is not read yet: not ours to take.
    if (peer.incarnation !== owner.incarnation) return peer.dead ? "unknown" : "dead";
    if (peer.dead) return "dead";
    return this.silence(peer, this.options.monotonic()) >= this.timing.suspectAfterMs ? "suspected" : "live";
  }

  /** Node ids that are live, this one included (unless fenced), sorted: the claimants of rendezvous hashing. */
  liveNodes(): string[] {
    const live = this.isFenced ? [] : [this.node];
    for (const [node, peer] of this.peers) {
      if (this.ownerState({ node, incarnation: peer.incarnation }) === "live") live.push(node);
    }
    return live.sort();
  }

  /**
   * The claimants of a dead node's keys: the live nodes that are not draining (a draining node would only
   * have to move what it took), or every live node when all of them drain.
   */
  claimantNodes(): string[] {
    const live = this.liveNodes();
    const staying = live.filter((node) =>
      node === this.node
        ? !this.options.facts().draining
        : this.peers.get(node)?.heartbeat?.draining !== true,
    );
    return staying.length > 0 ? staying : live;
  }

  /** Every peer seen, with its last heartbeat. */
  peerViews(): PeerView[] {
    return [...this.peers].map(([node, peer]) => ({
      node,
      incarnation: peer.incarnation,
      heartbeat: peer.heartbeat,
      state: this.ownerState({ node, incarnation: peer.incarnation }),
    }));
  }

  /** One heartbeat round: write ours, then read every peer's and settle who is dead. */
  async tick(): Promise<void> {
    if (this.ticking || this.isFenced) return;
    this.ticking = true;
    try {
      const sentAt = this.options.monotonic();
      const wallSentAt = this.options.scheduler.now();
      const wrote = await this.heartbeat();
      if (wrote) this.lease = { mono: sentAt, wall: wallSentAt };
      this.settleLeaseWaiters();
      if (this.fencedNow()) return;
      const observed = wrote && (await this.observe(sentAt));
      if (!observed) this.lastGoodRound = undefined;
    } finally {
      this.ticking = false;
    }
    this.options.events?.ticked?.();
  }

  private schedule(): void {
    if (this.stopped) return;
    const scheduler = this.options.scheduler;
    this.cancelTick = scheduler.at(scheduler.now() + this.timing.heartbeatMs, () => {
      void this.tick().finally(() => {
        this.schedule();
      });
    });
  }

  /** Writes the next heartbeat by CAS; false when it did not land (or its outcome is unknown). */
  private async heartbeat(): Promise<boolean> {
    this.beat++;
    try {
      this.revision = await this.nodes.update(this.node, this.encodeHeartbeat(), this.revision);
      return true;
    } catch (error) {
      if (!isKvError(error)) throw error;
      if (isWrongRevision(error)) await this.recheckOwnRecord();
      return false;
    }
  }

  /**
   * Our CAS failed: either an earlier heartbeat of ours that timed out landed after all (carry on from its
   * revision; the lease is not extended by it), or someone wrote over us — a tombstone: we are fenced.
   */
  private async recheckOwnRecord(): Promise<void> {
    let entry: KvEntry | null;
    try {
      entry = await this.nodes.get(this.node);
    } catch (error) {
      if (isKvError(error)) return; // unknown: the next round asks again
      throw error;
    }
    const record = entry === null ? null : decodeOrNull(entry);
    if (
      entry !== null &&
      record !== null &&
      !isTombstone(record) &&
      record.incarnation === this.incarnationId
    ) {
      this.revision = entry.revision;
      return;
    }
    this.fence();
  }

  /** Read afresh after an await (the heartbeat may have fenced this node). */
  private fencedNow(): boolean {
    return this.isFenced;
  }

  private fence(): void {
    if (this.isFenced) return;
    this.isFenced = true;
    this.lease = undefined;
    this.settleLeaseWaiters();
    this.options.events?.fenced?.();
  }

  /** Reads every peer's record; false when the read failed (silence is then not counted). */
  private async observe(now: number): Promise<boolean> {
    let entries: (KvEntry | null)[];
    try {
      const keys = await this.nodes.keys();
      entries = await Promise.all(keys.filter((k) => k !== this.node).map((k) => this.nodes.get(k)));
    } catch (error) {
      if (isKvError(error)) return false;
      throw error;
    }
    // Silence counts only across rounds that all succeeded, one heartbeat apart: after our own failure or
    // a pause of this process, every peer's count starts over.
    const continuous =
      this.lastGoodRound !== undefined && now - this.lastGoodRound <= 2 * this.timing.heartbeatMs;
    this.lastGoodRound = now;
    if (!continuous) for (const peer of this.peers.values()) peer.heardAt = now;
    const silent: [string, Peer][] = [];
    for (const entry of entries) {
      if (entry === null) continue;
      const record = decodeOrNull(entry);
      if (record === null) continue;
      const peer = this.learn(entry.key, entry.revision, record, now);
      if (!peer.dead && this.silence(peer, now) >= this.timing.failureTimeoutMs)
        silent.push([entry.key, peer]);
    }
    await Promise.all(silent.map(([node, peer]) => this.declareDead(node, peer)));
    return true;
  }

  /** Folds one peer record into the view; reports incarnations that are gone. */
  private learn(node: string, revision: number, record: NodeRecord, now: number): Peer {
    let peer = this.peers.get(node);
    if (peer?.revision === revision) return peer;
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
    const tombstone = encodeNodeRecord({ dead: true, incarnation: peer.incarnation, by: this.node });
    try {
      peer.revision = await this.nodes.update(node, tombstone, peer.revision);
    } catch (error) {
      if (isKvError(error)) return; // it heartbeated (or the outcome is unknown): the next round reads it
      throw error;
    }
    peer.dead = true;
    peer.heartbeat = null;
    this.markDead({ node, incarnation: peer.incarnation });
  }

  private markDead(peer: NodeIdentity): void {
    const id = `${peer.node}/${peer.incarnation}`;
    if (this.deadIncarnations.has(id)) return;
    this.deadIncarnations.add(id);
    this.options.events?.peerDead?.(peer);
  }

  private silence(peer: Peer, now: number): number {
    return now - peer.heardAt;
  }

  private encodeHeartbeat(): Uint8Array {
    return encodeNodeRecord({ ...this.options.facts(), incarnation: this.incarnationId, beat: this.beat });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.options.scheduler.at(this.options.scheduler.now() + ms, resolve);
    });
  }
}

function decodeOrNull(entry: KvEntry): NodeRecord | null {
  try {
    return decodeNodeRecord(entry.value);
  } catch {
    return null;
  }
}
