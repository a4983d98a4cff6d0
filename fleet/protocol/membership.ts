import type { Scheduler } from "../../actors/runtime/index.ts";
import type { NodeIdentity } from "./claim.ts";
import type { KvBucket, KvEntry } from "../kv.ts";
import { isKvError, isTimeout, isUnavailable, isWrongRevision } from "../kv-error.ts";
import { type MembershipTiming, resolveMembershipTiming } from "./membership-timing.ts";
import { NodeIdConflictError } from "./node-id-conflict-error.ts";
import { NodesWatch } from "./nodes-watch.ts";
import { type Heartbeat, decodeNodeRecordOrNull, encodeNodeRecord, isTombstone } from "./node-record.ts";
import { type OwnerState, type PeerView, PeerTable } from "./peer-table.ts";

/** What a node says about itself in every heartbeat, besides its incarnation. */
export type NodeFacts = Omit<Heartbeat, "incarnation" | "beat">;

/** What membership tells the node. */
export interface MembershipEvents {
  /** A peer incarnation is dead (this node tombstoned it, saw its tombstone, or saw it replaced). */
  peerDead?(peer: NodeIdentity): void;
  /** This node was declared dead: it must drop every actor at once and rejoin as a new incarnation. */
  fenced?(): void;
  /** A heartbeat round ended (successful or not): a good moment to look for keys to take over. */
  ticked?(): void;
}

/** What a Membership is made of. */
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

/**
 * One node's side of membership: compare-and-set heartbeats into `nodes` (no TTL), the lease that
 * decides whether this node may act, and the view of its peers (a PeerTable) — silence counted only while
 * this node's own heartbeats succeed, death declared by a tombstone written over the silent peer's
 * heartbeat. Pure logic over a KvBucket and clocks, so it runs unchanged on NATS and in the simulation.
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
  private readonly peers: PeerTable;
  private cancelTick: (() => void) | undefined;
  /** Peers' heartbeats and tombstones, heard as they land: between full reads, the rounds' only news. */
  private readonly watch: NodesWatch;
  /** The silence check between rounds (see `PeerTable.checkSilence`). */
  private cancelCheck: (() => void) | undefined;
  private ticking = false;
  private stopped = true;
  /** Waiting for the lease to come back (or to be lost for good). */
  private leaseWaiters: ((held: boolean) => void)[] = [];

  constructor(options: MembershipOptions) {
    this.options = options;
    this.nodes = options.nodes;
    this.incarnationId = options.incarnation;
    this.timing = resolveMembershipTiming(options.timing);
    this.peers = new PeerTable({
      nodes: options.nodes,
      node: options.node,
      timing: this.timing,
      monotonic: options.monotonic,
      fenced: () => this.isFenced,
      peerDead: (peer) => {
        this.options.events?.peerDead?.(peer);
      },
    });
    this.watch = new NodesWatch({
      nodes: options.nodes,
      scheduler: options.scheduler,
      monotonic: options.monotonic,
      timing: this.timing,
      heard: (entry) => {
        this.peers.heard(entry);
      },
    });
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
      const record = decodeNodeRecordOrNull(entry.value);
      if (record !== null && !isTombstone(record) && record.incarnation !== this.incarnationId) {
        // Still heartbeating? Give it a failure timeout to show it.
        await this.sleep(this.timing.failureTimeoutMs);
        const again = await this.nodes.get(this.node);
        if (again !== null && again.revision !== entry.revision) {
          // Moved by a peer's tombstone (it declared that silent incarnation dead): no second process.
          const moved = decodeNodeRecordOrNull(again.value);
          if (moved !== null && isTombstone(moved)) continue;
          throw new NodeIdConflictError(this.node);
        }
        this.peers.replaced(record.incarnation);
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
    this.watch.start();
    this.scheduleCheck();
    return this;
  }

  stop(): void {
    this.stopped = true;
    this.cancelTick?.();
    this.cancelCheck?.();
    this.watch.stop();
    this.settleLeaseWaiters();
  }

  private scheduleCheck(): void {
    if (this.stopped) return;
    const scheduler = this.options.scheduler;
    this.cancelCheck = scheduler.at(scheduler.now() + this.peers.nextCheckInMs(), () => {
      this.peers.checkSilence();
      this.scheduleCheck();
    });
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
    this.peers.reset();
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
    return this.peers.stateOf(owner);
  }

  /** Node ids that are live, this one included (unless fenced), sorted: the claimants of rendezvous hashing. */
  liveNodes(): string[] {
    const live = this.isFenced ? [] : [this.node];
    live.push(...this.peers.liveNodes());
    return live.sort();
  }

  /**
   * The claimants of a dead node's keys: the live nodes that are not draining (a draining node would only
   * have to move what it took), or every live node when all of them drain.
   */
  claimantNodes(): string[] {
    const live = this.liveNodes();
    const staying = live.filter((node) =>
      node === this.node ? !this.options.facts().draining : !this.peers.isDraining(node),
    );
    return staying.length > 0 ? staying : live;
  }

  /** Every peer seen, with its last heartbeat. */
  peerViews(): PeerView[] {
    return this.peers.views();
  }

  /**
   * One heartbeat round: write ours, then settle who is dead. The peers' records come from the watch
   * when it is keeping up — it delivered this round's own heartbeat, so every earlier write too — and
   * from a full read (a listing and a get per peer) when it is not: before the first full read, after a
   * rejoin, or while the watch is silent (NATS-NOTES: it can stay silent for seconds with no error).
   */
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
      const observed = wrote && (await this.observe(sentAt, this.revision));
      if (!observed) this.peers.roundFailed();
    } finally {
      this.ticking = false;
    }
    this.options.events?.ticked?.();
  }

  /** The peers' side of a round whose heartbeat landed at `revision`; false when reading them failed. */
  private async observe(sentAt: number, revision: number): Promise<boolean> {
    if (this.watch.running && this.peers.complete && (await this.watch.delivered(revision))) {
      await this.peers.watched(sentAt);
      return true;
    }
    if (this.peers.complete) this.watch.reopenIfSilent();
    return this.peers.observe(sentAt);
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
    const record = entry === null ? null : decodeNodeRecordOrNull(entry.value);
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

  private encodeHeartbeat(): Uint8Array {
    return encodeNodeRecord({ ...this.options.facts(), incarnation: this.incarnationId, beat: this.beat });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.options.scheduler.at(this.options.scheduler.now() + ms, resolve);
    });
  }
}
