import type { Scheduler } from "../../actors/runtime/index.ts";
import type { KvBucket, KvEntry, KvWatch } from "../kv.ts";
import { isKvError } from "../kv-error.ts";
import type { MembershipTiming } from "./membership-timing.ts";

/** What a NodesWatch is made of; Membership hands in its own. */
export interface NodesWatchOptions {
  /** The `nodes` bucket. */
  readonly nodes: KvBucket;
  readonly scheduler: Scheduler;
  readonly monotonic: () => number;
  readonly timing: Required<MembershipTiming>;
  /** Each record delivered, this node's own included. */
  readonly heard: (entry: KvEntry) => void;
}

/**
 * The watch of the whole `nodes` bucket, and whether it keeps up. It delivers the latest record of every
 * key first, then each write in revision order, so once it has delivered revision r every record
 * written before r has been heard: a node that sees its own heartbeat come back knows its view of its
 * peers is current without reading them. A NATS watch can go silent for seconds with no error
 * (NATS-NOTES); `delivered` is how the heartbeat rounds find out, one round at the latest.
 */
export class NodesWatch {
  private readonly options: NodesWatchOptions;
  private watch: KvWatch | undefined;
  /** Bumped with each watch made (and at stop): a delivery of an older one is dropped. */
  private generation = 0;
  /** The highest revision the current watch delivered, of any key. */
  private deliveredThrough = 0;
  /** Monotonic time the watch was last made: a silent one is made again at most once a failure timeout. */
  private openedAt = Number.NEGATIVE_INFINITY;
  /** Monotonic time of the current watch's last delivery (or of its making). */
  private lastDeliveryAt = Number.NEGATIVE_INFINITY;
  private stopped = true;
  /**
   * The last heartbeat the watch failed to deliver in time, while it is presumed silent: rounds then
   * read without waiting for it again, until it has delivered that one.
   */
  private missed: number | undefined;
  /** Rounds waiting for their own heartbeat to come back. */
  private waiters: { revision: number; settle: (delivered: boolean) => void }[] = [];

  constructor(options: NodesWatchOptions) {
    this.options = options;
  }

  /** True while a watch runs (a store that could not make one has none; the rounds then read). */
  get running(): boolean {
    return this.watch !== undefined;
  }

  /** Makes the watch, unless one runs. */
  start(): void {
    this.stopped = false;
    if (this.watch === undefined) this.open();
  }

  stop(): void {
    this.stopped = true;
    this.watch?.stop();
    this.watch = undefined;
    this.generation++;
    this.settleWaiters();
  }

  /**
   * Resolves true once the watch has delivered `revision` (a heartbeat just written), false when it has
   * not within a quarter heartbeat: it is silent or far behind, and the round reads instead. While it
   * stays silent (it has not delivered the heartbeat it last missed either) the answer is false at once,
   * so a silent watch delays one round, not every round; once it has caught up, rounds wait for it again.
   */
  delivered(revision: number): Promise<boolean> {
    if (this.deliveredThrough >= revision) {
      this.missed = undefined;
      return Promise.resolve(true);
    }
    if (this.stopped || this.watch === undefined) return Promise.resolve(false);
    if (this.missed !== undefined) {
      this.missed = this.deliveredThrough >= this.missed ? undefined : revision;
      return Promise.resolve(false);
    }
    return this.waitFor(revision);
  }

  private waitFor(revision: number): Promise<boolean> {
    return new Promise((resolve) => {
      const { scheduler, timing } = this.options;
      const cancel = scheduler.at(scheduler.now() + timing.heartbeatMs / 4, () => {
        waiter.settle(false);
      });
      const waiter = {
        revision,
        settle: (delivered: boolean) => {
          cancel();
          this.waiters = this.waiters.filter((w) => w !== waiter);
          if (!delivered && !this.stopped) this.missed = revision;
          resolve(delivered);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /**
   * A watch that did not deliver a round's heartbeat and has delivered nothing for a heartbeat (or could
   * not be made) is made again — the store also remakes watches on a reconnect — at most once a failure
   * timeout. One that is only behind (still delivering, on a busy node) is left to catch up: made
   * again, it would deliver every record again.
   */
  reopenIfSilent(): void {
    if (this.stopped) return;
    const now = this.options.monotonic();
    if (this.watch !== undefined && now - this.lastDeliveryAt <= this.options.timing.heartbeatMs) return;
    if (now - this.openedAt < this.options.timing.failureTimeoutMs) return;
    this.open();
  }

  private open(): void {
    this.watch?.stop();
    this.watch = undefined;
    const generation = ++this.generation;
    this.deliveredThrough = 0;
    this.missed = undefined;
    this.openedAt = this.options.monotonic();
    this.lastDeliveryAt = this.openedAt;
    try {
      this.watch = this.options.nodes.watch({}, (entry) => {
        if (generation !== this.generation) return;
        this.deliveredThrough = Math.max(this.deliveredThrough, entry.revision);
        this.lastDeliveryAt = this.options.monotonic();
        this.options.heard(entry);
        this.settleWaiters();
      });
    } catch (error) {
      // A store that cannot watch now (its connection closed): the rounds read every record.
      if (!isKvError(error)) throw error;
    }
  }

  private settleWaiters(): void {
    for (const waiter of [...this.waiters]) {
      if (this.stopped) waiter.settle(false);
      else if (this.deliveredThrough >= waiter.revision) waiter.settle(true);
    }
  }
}
