import type { ActorCell, BatchBookkeeping, Envelope } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import { BatchFolder } from "./batch-fold.ts";
import { afterSpawns, silenced, spawnsOf, type Outcome } from "./batch-outcome.ts";
import { forgetFired, planTimers } from "./cell-timers.ts";
import { EffectRunner, type EffectHost } from "./effect-runner.ts";
import type { SnapshotSpawn, SnapshotTimer } from "./ports.ts";
import { stampPushes } from "./push-stamps.ts";
import { retryLaterMs, unavailable } from "./request-results.ts";
import { SnapshotWrites, type WriteHost } from "./snapshot-writes.ts";
import { TimerArming } from "./timer-arming.ts";
import type { ActorContext, AskResult, Effect } from "./types.ts";

export type { Outcome } from "./batch-outcome.ts";

/** What the runner needs from the system that owns the cells (see EffectHost and WriteHost). */
export interface RunnerHost extends EffectHost, WriteHost {
  context(key: string, now: number): ActorContext;
  isClosed(): boolean;
}

/**
 * Runs an actor's mailbox: takes a batch, folds it through the handler, writes one snapshot (group
 * commit), and only then carries out the effects in order — nothing a client hears is ever unwritten.
 *
 * Spawns before what they cause: a batch that spawns actors (a lobby starting its room) writes them in
 * its snapshot (`spawning`), creates them, and only once each is stored (or has failed, and its creator
 * was told `spawnFailed`) writes again without them and carries out its other effects. So a player is
 * never sent to a room that is not stored yet, and a creator restored from a snapshot written before its
 * spawns settled creates them again if they are missing (RestoredSpawns, `settleSpawns`). The second write
 * comes before anything reaches a player, so no child can have ended by then and be brought back.
 */
export class MailboxRunner {
  private readonly folder: BatchFolder;
  private readonly effects: EffectRunner;
  private readonly writes: SnapshotWrites;
  private readonly timers: TimerArming;

  constructor(
    private readonly options: ActorSystemOptions,
    private readonly host: RunnerHost,
  ) {
    const deliver = (key: string, envelope: Envelope): void => {
      host.deliver(key, envelope);
    };
    this.folder = new BatchFolder(options, (key, now) => host.context(key, now));
    this.effects = new EffectRunner(options, host);
    this.writes = new SnapshotWrites(options, host);
    this.timers = new TimerArming(options.scheduler, deliver);
  }

  /** Starts the mailbox if it has work and is not running or paused. */
  kick(cell: ActorCell): void {
    if (cell.running || cell.frozen || cell.mailbox.length === 0) return;
    if (cell.pausedUntil > this.options.scheduler.now()) return;
    cell.running = true;
    void this.drain(cell).finally(() => {
      cell.running = false;
      for (const wake of cell.idleWaiters.splice(0)) wake();
      if (!cell.stopped && cell.mailbox.length > 0 && !this.host.isClosed()) this.kick(cell);
    });
  }

  /** See EffectRunner.runSilenced. */
  runSilenced(from: string, outcomes: readonly Outcome[], why: string): void {
    this.effects.runSilenced(from, outcomes, why);
  }

  /** Carries out one outcome's effects in order and answers its asker (once). */
  runEffects(from: string, outcome: Outcome): void {
    this.effects.runEffects(from, outcome);
  }

  /** Numbers the pushes and events of a change (see `stampPushes`). */
  stampPushes(cell: ActorCell, effects: readonly Effect[]): Effect[] {
    return stampPushes(cell, effects, this.options.scheduler);
  }

  /** Arms (or re-arms) a timer; when it fires, the actor gets `{ type: "timer", name }` tagged with it. */
  arm(cell: ActorCell, name: string, kind: "game" | "grace", at: number): void {
    this.timers.arm(cell, name, kind, at);
  }

  /** Arms and cancels timers as the written effects say. */
  applyTimers(cell: ActorCell, changes: readonly Effect[]): void {
    this.timers.applyTimers(cell, changes);
  }

  /**
   * True when this node may act now; when its lease lapsed (a write took longer than the lease had left),
   * waits for the next heartbeat to say whether it still holds it.
   */
  async leaseHeld(): Promise<boolean> {
    const node = this.options.node;
    if (node.mayAct()) return true;
    return (await node.leaseSettled?.()) ?? false;
  }

  private async drain(cell: ActorCell): Promise<void> {
    while (cell.mailbox.length > 0 && !cell.stopped && !cell.frozen && !this.host.isClosed()) {
      const batch = cell.mailbox.splice(0, this.options.maxBatch ?? 64);
      const now = this.options.scheduler.now();
      cell.lastActive = now;
      if (!this.options.node.mayAct()) {
        this.deferBatch(cell, batch, "this node's lease is not fresh");
        return;
      }
      if (!(await this.runBatch(cell, batch, now))) return;
    }
  }

  /** One batch: fold, write if needed, then effects. False when the write failed (the batch was deferred). */
  private async runBatch(cell: ActorCell, batch: Envelope[], now: number): Promise<boolean> {
    const before = cell.state;
    const seqBefore = cell.seq;
    const { state, outcomes, bookkeeping } = this.folder.fold(cell, batch, now);
    const allEffects = outcomes.flatMap((o) => o.effects);
    const stopping = allEffects.some((e) => e.type === "stop");
    const spawns = spawnsOf(allEffects);
    // Written with the snapshot, for a restore to settle; a creator that stops in the same batch is
    // removed from the store instead, and nothing of it is ever restored.
    const recorded = stopping ? [] : spawns;
    const stamped = outcomes.map((o) => ({ ...o, effects: this.stampPushes(cell, o.effects) }));
    const timers = planTimers(cell, allEffects, bookkeeping.fired, now);
    bookkeeping.dropped = [...bookkeeping.acknowledged, ...cell.results.trim(now)];
    // A push's sequence number is a change too: a restored actor must never reuse one.
    const changed =
      state !== before ||
      timers.changes.length > 0 ||
      bookkeeping.fired.size > 0 ||
      bookkeeping.added.length > 0 ||
      cell.seq !== seqBefore ||
      bookkeeping.dropped.length > 0;
    const mustWrite =
      stopping || recorded.length > 0 || outcomes.some((o) => o.flush === true || (!o.volatile && changed));
    if (mustWrite && (changed || cell.dirty || stopping || recorded.length > 0)) {
      cell.spawning = recorded;
      if (!(await this.writes.persist(cell, state, timers.table, now, stopping))) {
        cell.spawning = [];
        // Retries answered from results written earlier keep their answer; the rest learn nothing was done.
        for (const outcome of outcomes) if (outcome.cached) outcome.envelope.resolve?.(outcome.cached);
        this.failBatch(cell, before, batch, bookkeeping);
        return false;
      }
      cell.dirty = false;
      if (!(await this.leaseHeld())) {
        // Written, but this node's lease ran out while the write was in flight and it was then declared
        // dead: another node may own the key now, so nothing may be said about it from here.
        this.runSilenced(cell.key, silenced(stamped, recorded), "this node lost its lease");
        this.host.forget(cell);
        return false;
      }
      if (cell.stopped) {
        // Dropped while the write was in flight (the node was declared dead, and holds a new
        // incarnation's lease by now): the key is another node's, so this batch says nothing either.
        this.runSilenced(cell.key, silenced(stamped, recorded), "this node was declared dead");
        return false;
      }
    } else if (changed) {
      this.writes.markDirty(cell, now);
    }
    cell.state = state;
    forgetFired(cell, bookkeeping.fired);
    this.applyTimers(cell, timers.changes);
    if (spawns.length > 0) {
      const rewrite = recorded.length > 0 ? timers.table : null;
      const failed = await this.settleSpawns(cell, spawns, rewrite, stamped, now);
      if (failed === null) return false;
      for (const outcome of stamped) this.runEffects(cell.key, afterSpawns(outcome, failed));
    } else {
      for (const outcome of stamped) this.runEffects(cell.key, outcome);
    }
    cell.lastActive = now;
    if (stopping) {
      this.host.forget(cell);
      this.options.events?.stopped?.(cell.key);
    }
    return true;
  }

  /**
   * Creates a written batch's spawned actors and waits until each is stored or has failed, then writes
   * the creator again without them, with these timers (see the class comment; `null`: the creator was
   * removed). Resolves the keys that failed (their creator has been told `spawnFailed`), or null when
   * the creator may no longer speak for its key meanwhile: the batch's other effects then run silenced,
   * and the cell is gone.
   */
  private async settleSpawns(
    cell: ActorCell,
    spawns: readonly SnapshotSpawn[],
    rewrite: readonly SnapshotTimer[] | null,
    stamped: readonly Outcome[],
    now: number,
  ): Promise<ReadonlySet<string> | null> {
    const stored = await Promise.all(spawns.map((s) => this.host.spawnFromEffect(s, cell.key)));
    const failed = new Set(spawns.flatMap((s, i) => (stored[i] === true ? [] : [s.key])));
    cell.spawning = [];
    let speaks = !cell.stopped && (await this.leaseHeld());
    if (speaks && rewrite !== null) {
      if (!(await this.writes.persist(cell, cell.state, rewrite, now, false)) && !cell.stopped) {
        // The store refused the second write: it is made with the next flush. Until then a restore would
        // look for these children again and find them, unless one had ended meanwhile (docs/design.md).
        this.writes.markDirty(cell, now);
      }
      // A write can outlast the lease, as after the batch's own write.
      speaks = !cell.stopped && (await this.leaseHeld());
    }
    if (speaks) return failed;
    this.runSilenced(
      cell.key,
      stamped.map((o) => afterSpawns(o, failed)),
      "this node lost its lease",
    );
    if (!cell.stopped) this.host.forget(cell);
    return null;
  }

  /** A write that did not succeed: nothing is acknowledged, the state stays what was last written. */
  private failBatch(
    cell: ActorCell,
    before: unknown,
    batch: Envelope[],
    bookkeeping: BatchBookkeeping,
  ): void {
    cell.state = before;
    // Only what this batch changed: a retry answered from an earlier, written result keeps it.
    cell.results.undo(bookkeeping.added, bookkeeping.dropped);
    if (cell.stopped) {
      const moved: AskResult = {
        ok: false,
        code: "MOVED",
        message: `${cell.key} moved`,
        retryAfterMs: retryLaterMs,
      };
      for (const envelope of batch) envelope.resolve?.(moved);
      return;
    }
    this.deferBatch(cell, batch, "the store is not taking writes");
  }

  /** Asks get a retryable refusal; tells wait and are tried again, so no internal message is lost. */
  private deferBatch(cell: ActorCell, batch: Envelope[], why: string): void {
    const tells = batch.filter((e) => !e.resolve);
    for (const envelope of batch) envelope.resolve?.(unavailable(why));
    if (tells.length === 0) return;
    cell.mailbox.unshift(...tells);
    cell.pausedUntil = this.options.scheduler.now() + retryLaterMs;
    this.options.scheduler.at(cell.pausedUntil, () => {
      this.kick(cell);
    });
  }
}
