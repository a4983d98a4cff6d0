import {
  flushMessage,
  type ActorCell,
  type ArmedTimer,
  type BatchBookkeeping,
  type Envelope,
} from "./actor-cell.ts";
import { forgetFired, planTimers } from "./cell-timers.ts";
import { PersistError, type Snapshot, type SnapshotSpawn, type SnapshotTimer } from "./ports.ts";
import {
  answerOf,
  rejectEffect,
  rejection,
  resultToAnswer,
  retryLaterMs,
  toResult,
  unavailable,
} from "./request-results.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import type { ActorContext, AskResult, Effect, EventStamp, StudioEventName, Transition } from "./types.ts";

/** What handling one envelope of a batch produced. */
export interface Outcome {
  readonly envelope: Envelope;
  readonly effects: readonly Effect[];
  readonly cached?: AskResult;
  /** The change may run its effects before it is written (see Transition.volatile). */
  readonly volatile: boolean;
  /** The runtime's flush: write even though nothing changed in this batch. */
  readonly flush?: boolean;
}

/** What the runner needs from the system that owns the cells. */
export interface RunnerHost {
  deliver(key: string, envelope: Envelope): void;
  /**
   * Creates the actor of a spawn effect (on `node` when it names another node). Resolves true once it
   * is stored; false when it could not be created, after telling `from` `spawnFailed`.
   */
  spawnFromEffect(key: string, init: unknown, from: string, node?: string): Promise<boolean>;
  /** The actor is gone from this node (stopped or fenced): drop it and re-route its mailbox. */
  forget(cell: ActorCell): void;
  context(key: string, now: number): ActorContext;
  snapshotOf(
    cell: ActorCell,
    state: unknown,
    timers: readonly SnapshotTimer[],
    epoch: number,
    now: number,
  ): Snapshot;
  isClosed(): boolean;
}

/** What a node that may no longer speak for a key does not do for a batch it wrote (see runSilenced). */
const silencedEffects: ReadonlySet<string> = new Set(["push", "reply", "reject"]);

/**
 * Runs an actor's mailbox: takes a batch, folds it through the handler, writes one snapshot (group
 * commit), and only then carries out the effects in order — nothing a client hears is ever unwritten.
 *
 * Spawns before what they cause: a batch that spawns actors (a lobby starting its room) writes them in
 * its snapshot (`spawning`), creates them, and only once each is stored (or has failed, and its creator
 * was told `spawnFailed`) writes again without them and carries out its other effects. So a player is
 * never sent to a room that is not stored yet, and a creator restored from a snapshot written before its
 * spawns settled creates them again if they are missing (ActorSystem, `settleSpawns`). The second write
 * comes before anything reaches a player, so no child can have ended by then and be brought back.
 */
export class MailboxRunner {
  constructor(
    private readonly options: ActorSystemOptions,
    private readonly host: RunnerHost,
  ) {}

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

  /**
   * A batch written by a node that may no longer speak for its key: nothing goes to players (no push,
   * and every ask is answered UNAVAILABLE — retried, it is answered from the stored result by the key's
   * owner), but what the written change causes elsewhere (tells, spawns, studio events) still happens,
   * once: the new owner restores the written state and will not cause it again.
   */
  runSilenced(from: string, outcomes: readonly Outcome[], why: string): void {
    for (const outcome of outcomes) {
      outcome.envelope.resolve?.(unavailable(why));
      const { resolve: _answered, ...envelope } = outcome.envelope;
      const effects = outcome.effects.filter((e) => !silencedEffects.has(e.type));
      this.runEffects(from, { envelope, effects, volatile: outcome.volatile });
    }
  }

  /** Carries out one outcome's effects in order and answers its asker (once). */
  runEffects(from: string, outcome: Outcome): void {
    let answered = false;
    const answer = (result: AskResult): void => {
      if (answered) return;
      answered = true;
      outcome.envelope.resolve?.(result);
    };
    if (outcome.cached) answer(outcome.cached);
    for (const effect of outcome.effects) {
      switch (effect.type) {
        case "push":
          this.options.outbox.push(effect.to, effect.frame as never);
          break;
        case "reply":
          answer(effect.value === undefined ? { ok: true } : { ok: true, value: effect.value });
          break;
        case "reject":
          answer(rejection(effect));
          break;
        case "tell":
          this.host.deliver(effect.to, { message: effect.message });
          break;
        case "spawn":
          void this.host.spawnFromEffect(effect.key, effect.init, from, effect.node);
          break;
        case "releaseBlob":
          this.options.blobs?.release(effect.id);
          break;
        case "event":
          if (effect.stamp) this.publish(effect.name, effect.data, effect.stamp);
          break;
        case "timer":
        case "cancelTimer":
        case "stop":
          break;
      }
    }
    answer({ ok: true });
  }

  /**
   * Gives every push the key, epoch and next sequence number; the snapshot then carries the last seq.
   * Events (docs/server-api.md) take no number of their own, so the frames of consecutive changes keep
   * consecutive numbers: they are stamped with the seq of the last frame of their change and their index
   * in it, and only a change whose events no frame separates from earlier events takes a fresh number.
   */
  stampPushes(cell: ActorCell, effects: readonly Effect[]): Effect[] {
    const pushed = effects.map((effect) => {
      if (effect.type !== "push") return effect;
      cell.seq++;
      return { ...effect, frame: { ...effect.frame, key: cell.key, epoch: cell.epoch, seq: cell.seq } };
    });
    if (!pushed.some((e) => e.type === "event")) return pushed;
    if (cell.seq === cell.eventSeq) cell.seq++;
    cell.eventSeq = cell.seq;
    const at = this.options.scheduler.now();
    let index = 0;
    return pushed.map((effect) => {
      if (effect.type !== "event") return effect;
      return { ...effect, stamp: { key: cell.key, epoch: cell.epoch, seq: cell.seq, index: index++, at } };
    });
  }

  /** Hands an event to the publisher; a publisher that throws loses that event, nothing else. */
  private publish(name: StudioEventName, data: Readonly<Record<string, unknown>>, stamp: EventStamp): void {
    try {
      this.options.publisher?.publish({ ...stamp, name, data });
    } catch (error) {
      this.options.events?.publishFailed?.(stamp.key, error);
    }
  }

  /** Arms (or re-arms) a timer; when it fires, the actor gets `{ type: "timer", name }` tagged with it. */
  arm(cell: ActorCell, name: string, kind: "game" | "grace", at: number): void {
    cell.timers.get(name)?.cancel();
    const timer: ArmedTimer = {
      kind,
      at,
      cancel: this.options.scheduler.at(at, () => {
        if (cell.timers.get(name) === timer)
          this.host.deliver(cell.key, { message: { type: "timer", name }, timer });
      }),
    };
    cell.timers.set(name, timer);
  }

  /** Arms and cancels timers as the written effects say. */
  applyTimers(cell: ActorCell, changes: readonly Effect[]): void {
    for (const change of changes) {
      if (change.type === "timer") this.arm(cell, change.name, change.kind, change.at);
      else if (change.type === "cancelTimer") {
        cell.timers.get(change.name)?.cancel();
        cell.timers.delete(change.name);
      }
    }
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
    const bookkeeping: BatchBookkeeping = {
      fired: new Map(),
      touched: new Set(),
      added: [],
      dropped: [],
      acknowledged: [],
    };
    const outcomes: Outcome[] = [];
    let state = cell.state;
    for (const [i, envelope] of batch.entries()) {
      const handled = this.handleOne(cell, state, envelope, now, bookkeeping);
      outcomes.push(handled.outcome);
      state = handled.state;
      // The actor ends here (its last member left): what came after in the batch is not for it. It goes
      // back to the mailbox, which `forget` re-routes once the stop is written — to no actor (NOT_FOUND)
      // or one created afresh. Found by `foyer chaos` (seed 2030): a join batched behind the last leave
      // was acknowledged into a lobby that was then deleted, and heard with no host.
      if (i + 1 < batch.length && handled.outcome.effects.some((e) => e.type === "stop")) {
        cell.mailbox.unshift(...batch.splice(i + 1));
        break;
      }
    }
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
      if (!(await this.persist(cell, state, timers.table, now, stopping))) {
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
      this.markDirty(cell, now);
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
    const stored = await Promise.all(
      spawns.map((s) => this.host.spawnFromEffect(s.key, s.init, cell.key, s.node)),
    );
    const failed = new Set(spawns.flatMap((s, i) => (stored[i] === true ? [] : [s.key])));
    cell.spawning = [];
    let speaks = !cell.stopped && (await this.leaseHeld());
    if (speaks && rewrite !== null) {
      if (!(await this.persist(cell, cell.state, rewrite, now, false)) && !cell.stopped) {
        // The store refused the second write: it is made with the next flush. Until then a restore would
        // look for these children again and find them, unless one had ended meanwhile (docs/design.md).
        this.markDirty(cell, now);
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

  private handleOne(
    cell: ActorCell,
    state: unknown,
    envelope: Envelope,
    now: number,
    bookkeeping: BatchBookkeeping,
  ): { state: unknown; outcome: Outcome } {
    const unchanged = (
      effects: readonly Effect[],
      cached?: AskResult,
    ): { state: unknown; outcome: Outcome } => ({
      state,
      outcome: cached ? { envelope, effects, cached, volatile: true } : { envelope, effects, volatile: true },
    });
    if (envelope.message === flushMessage)
      return { state, outcome: { envelope, effects: [], volatile: false, flush: true } };
    if (envelope.request) {
      const through = envelope.request.answeredThrough;
      if (through !== undefined && through < envelope.request.id)
        bookkeeping.acknowledged.push(...cell.results.acknowledge(envelope.request.session, through));
      const earlier = cell.results.get(envelope.request);
      if (earlier) return unchanged([], resultToAnswer(earlier));
    }
    const message = cell.kind.parse(envelope.message);
    if (message === undefined) return unchanged([rejectEffect("INVALID", "not a message this actor takes")]);
    if (isTimerMessage(message)) {
      // Only the runtime fires timers, and only the one still armed under that name counts. It is
      // forgotten once the batch is written, so a failed write leaves it armed for the retry. One that
      // an earlier message of this batch cancelled or re-armed is no longer the armed one either: a
      // member back in the same batch as its grace's firing keeps its seat.
      if (
        !envelope.timer ||
        cell.timers.get(message.name) !== envelope.timer ||
        bookkeeping.touched.has(message.name)
      )
        return unchanged([]);
      bookkeeping.fired.set(message.name, envelope.timer);
    }
    let transition: Transition<unknown>;
    try {
      transition = cell.kind.handle(state, message, this.host.context(cell.key, now));
    } catch (error) {
      this.options.events?.handlerFailed?.(cell.key, error);
      return unchanged([rejectEffect("INTERNAL", "the handler failed")]);
    }
    for (const effect of transition.effects)
      if (effect.type === "timer" || effect.type === "cancelTimer") bookkeeping.touched.add(effect.name);
    const answer = answerOf(transition.effects);
    if (envelope.request && answer && transition.state !== state) {
      cell.results.add(toResult(envelope.request, now, answer));
      bookkeeping.added.push(envelope.request);
    }
    return {
      state: transition.state,
      outcome: { envelope, effects: transition.effects, volatile: transition.volatile === true },
    };
  }

  /** Schedules the write of volatile changes, once per dirty period. */
  private markDirty(cell: ActorCell, now: number): void {
    if (cell.dirty) return;
    cell.dirty = true;
    this.options.scheduler.at(now + (this.options.volatileFlushMs ?? 3_000), () => {
      if (cell.dirty && !cell.stopped) this.host.deliver(cell.key, { message: flushMessage });
    });
  }

  private async persist(
    cell: ActorCell,
    state: unknown,
    timers: readonly SnapshotTimer[],
    now: number,
    stopping: boolean,
  ): Promise<boolean> {
    const started = this.options.scheduler.now();
    try {
      if (stopping) {
        await this.options.store.remove(cell.key, cell.revision, cell.epoch);
      } else {
        const snapshot = this.host.snapshotOf(cell, state, timers, cell.epoch, now);
        cell.revision = await this.options.store.write(cell.key, snapshot, cell.revision);
      }
      this.options.events?.persisted?.(cell.key, this.options.scheduler.now() - started);
      return true;
    } catch (error) {
      this.options.events?.persistFailed?.(cell.key, error);
      if (error instanceof PersistError && error.failure === "fenced") this.host.forget(cell);
      return false;
    }
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

/**
 * A written batch's outcomes as a node that may no longer speak for the key carries them out: the spawns
 * its snapshot records are left to whoever restores it (which makes sure they exist), so none is made
 * twice and no `spawnFailed` reaches the restored creator for a child that exists.
 */
function silenced(stamped: readonly Outcome[], recorded: readonly SnapshotSpawn[]): readonly Outcome[] {
  return recorded.length > 0 ? stamped.map(withoutSpawns) : stamped;
}

function withoutSpawns(outcome: Outcome): Outcome {
  return { ...outcome, effects: outcome.effects.filter((e) => e.type !== "spawn") };
}

/** The spawns among a batch's effects, as its snapshot records them. */
function spawnsOf(effects: readonly Effect[]): SnapshotSpawn[] {
  return effects.flatMap((e) =>
    e.type === "spawn"
      ? [e.node === undefined ? { key: e.key, init: e.init } : { key: e.key, init: e.init, node: e.node }]
      : [],
  );
}

/**
 * An outcome whose spawns were already carried out. One whose `quietIfFailed` spawn failed tells its
 * players nothing: its frames would describe a child that does not exist, and the creator's
 * `spawnFailed` (already in its mailbox) changes that state again and says so. Its asker is still
 * answered, and its frames' numbers are simply not heard (clients take the next higher one).
 */
function afterSpawns(outcome: Outcome, failed: ReadonlySet<string>): Outcome {
  const spoiled = outcome.effects.some(
    (e) => e.type === "spawn" && e.quietIfFailed === true && failed.has(e.key),
  );
  const kept = outcome.effects.filter((e) => e.type !== "spawn" && !(spoiled && e.type === "push"));
  return { ...outcome, effects: kept };
}

function isTimerMessage(message: unknown): message is { type: "timer"; name: string } {
  return (message as { type?: unknown }).type === "timer";
}
