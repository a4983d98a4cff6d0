import {
  ActorCell,
  flushMessage,
  requestKey,
  resultToAnswer,
  type ArmedTimer,
  type Envelope,
} from "./actor-cell.ts";
import type { ErrorCode } from "./error-codes.ts";
import {
  PersistError,
  type ActorStore,
  type NodeState,
  type Outbox,
  type Scheduler,
  type Snapshot,
  type SnapshotResult,
  type SnapshotTimer,
} from "./ports.ts";
import type { ActorContext, ActorKind, AskResult, Effect, Random, RequestId, Transition } from "./types.ts";

/** How the runtime reports what it cannot handle itself; the node wires it to its logger. */
export interface RuntimeEvents {
  /** A handler threw: the actor kept its last good state and the asker got INTERNAL. */
  handlerFailed?(key: string, error: unknown): void;
  /** A snapshot write failed (fenced, unavailable) or a spawn failed. */
  persistFailed?(key: string, error: unknown): void;
  /** A tell to a key with no actor and no snapshot. */
  deadLetter?(key: string, message: unknown): void;
  /** A new actor was created (its first snapshot written). */
  created?(key: string): void;
  /** An actor finished (`stop`) and its snapshot was removed. */
  stopped?(key: string): void;
}

/** Options of an ActorSystem. Every dependency is passed in. */
export interface ActorSystemOptions {
  readonly store: ActorStore;
  readonly outbox: Outbox;
  readonly scheduler: Scheduler;
  readonly random: Random;
  readonly node: NodeState;
  readonly events?: RuntimeEvents;
  /** Default deadline of an ask. */
  readonly askTimeoutMs?: number;
  /** How long a request's result is kept for retries (SDK retry deadline + failure timeout). */
  readonly resultRetentionMs?: number;
  /** Idle actors are dropped from memory after this long (their snapshot stays in the store). */
  readonly passivateAfterMs?: number;
  /** At most this many messages of one actor share one snapshot write (group commit). */
  readonly maxBatch?: number;
  /** Volatile changes are written at most this long after the first of them. */
  readonly volatileFlushMs?: number;
}

interface Registration {
  readonly kind: ActorKind<unknown, unknown>;
  /** Keys of this kind that have no snapshot are created on their first message (player, directory). */
  readonly createOnDemand: boolean;
}

/** What handling a batch produced for one envelope. */
interface Outcome {
  readonly envelope: Envelope;
  readonly effects: readonly Effect[];
  readonly cached?: AskResult;
  /** The change may run its effects before it is written (see Transition.volatile). */
  readonly volatile: boolean;
  /** The runtime's flush: write even though nothing changed in this batch. */
  readonly flush?: boolean;
}

const retryLaterMs = 500;

/**
 * The actor runtime: one mailbox per key, messages handled one at a time, the new state persisted before
 * any effect is carried out (persist before acknowledging), supervision, timers as absolute deadlines,
 * request-id deduplication kept in the snapshot, and passivation of idle actors.
 */
export class ActorSystem {
  private readonly kinds = new Map<string, Registration>();
  private readonly cells = new Map<string, ActorCell>();
  private readonly loading = new Map<string, Promise<ActorCell | null>>();
  private readonly waiting = new Map<string, Envelope[]>();
  private readonly askTimeoutMs: number;
  private readonly retentionMs: number;
  private readonly passivateAfterMs: number;
  private readonly maxBatch: number;
  private readonly volatileFlushMs: number;
  private sweepCancel: (() => void) | undefined;
  private writeCounter = 0;
  private closed = false;

  constructor(private readonly options: ActorSystemOptions) {
    this.askTimeoutMs = options.askTimeoutMs ?? 5_000;
    this.retentionMs = options.resultRetentionMs ?? 120_000;
    this.passivateAfterMs = options.passivateAfterMs ?? 60_000;
    this.maxBatch = options.maxBatch ?? 64;
    this.volatileFlushMs = options.volatileFlushMs ?? 3_000;
    this.scheduleSweep();
  }

  /** Makes a kind addressable under `<kind.kind>/…`. */
  register<S, M>(kind: ActorKind<S, M>, opts: { createOnDemand?: boolean } = {}): this {
    this.kinds.set(kind.kind, {
      kind: kind,
      createOnDemand: opts.createOnDemand ?? false,
    });
    return this;
  }

  /** Sends a message and waits for the actor's answer (or the deadline). Never rejects. */
  ask(
    key: string,
    message: unknown,
    opts: { request?: RequestId; timeoutMs?: number } = {},
  ): Promise<AskResult> {
    return new Promise<AskResult>((resolve) => {
      let done = false;
      const cancel = this.options.scheduler.at(
        this.options.scheduler.now() + (opts.timeoutMs ?? this.askTimeoutMs),
        () => {
          finish({ ok: false, code: "TIMEOUT", message: `${key} did not answer in time` });
        },
      );
      const finish = (result: AskResult): void => {
        if (done) return;
        done = true;
        cancel();
        resolve(result);
      };
      const envelope: Envelope = opts.request
        ? { message, request: opts.request, resolve: finish }
        : { message, resolve: finish };
      this.deliver(key, envelope);
    });
  }

  /** Sends a message without waiting. A key with no actor drops it (reported as a dead letter). */
  tell(key: string, message: unknown): void {
    this.deliver(key, { message });
  }

  /**
   * Creates the actor `key` with `init`. Resolves `{ created: false }` when the key is already claimed
   * (the caller draws another code), else the creation's answer (reply / reject effects of `create`).
   */
  async spawn(
    key: string,
    init: unknown,
    opts: { request?: RequestId } = {},
  ): Promise<{ created: false } | { created: true; result: AskResult }> {
    if (this.cells.has(key) || this.loading.has(key)) return { created: false };
    const creating = this.create(key, init, opts.request);
    this.loading.set(
      key,
      creating.then((r) => (r.created ? (this.cells.get(key) ?? null) : null)),
    );
    try {
      return await creating;
    } finally {
      this.loading.delete(key);
    }
  }

  /** Runs the kind's `create`, claims the key with the first snapshot, then carries out the effects. */
  private async create(
    key: string,
    init: unknown,
    request: RequestId | undefined,
  ): Promise<{ created: false } | { created: true; result: AskResult }> {
    const registration = this.registration(key);
    if (!registration) return { created: true, result: invalid(`no actor kind serves ${key}`) };
    const now = this.options.scheduler.now();
    let transition: Transition<unknown>;
    try {
      transition = registration.kind.create(init, this.context(key, now));
    } catch (error) {
      this.options.events?.handlerFailed?.(key, error);
      return { created: true, result: { ok: false, code: "INTERNAL", message: "create failed" } };
    }
    const cell = new ActorCell(key, registration.kind, transition.state, 0, 0, 0, now);
    const answer = answerOf(transition.effects);
    if (request && answer) cell.results.set(requestKey(request), toResult(request, now, answer));
    const pending = this.planTimers(cell, transition.effects, now);
    const pushes = transition.effects.filter((e) => e.type === "push").length;
    try {
      const claimed = await this.options.store.create(key, (epoch) => {
        cell.seq = pushes;
        return this.snapshotOf(cell, transition.state, pending.table, epoch, now);
      });
      cell.epoch = claimed.epoch;
      cell.revision = claimed.revision;
      cell.seq = 0;
    } catch (error) {
      if (error instanceof PersistError && error.failure === "exists") return { created: false };
      this.options.events?.persistFailed?.(key, error);
      return { created: true, result: unavailable("the store did not take the new actor") };
    }
    this.cells.set(key, cell);
    this.options.events?.created?.(key);
    this.applyTimers(cell, pending.changes);
    this.runEffects(
      cell,
      { envelope: { message: init }, effects: this.stampPushes(cell, transition.effects), volatile: false },
      now,
    );
    this.kick(cell);
    return { created: true, result: answer ?? { ok: true } };
  }

  /** True when the actor is in memory. */
  isLive(key: string): boolean {
    return this.cells.has(key);
  }

  /** The in-memory state of a live actor (for the harness and the admin view); undefined when passivated. */
  peek(key: string): unknown {
    return this.cells.get(key)?.state;
  }

  /** Number of actors in memory. */
  get liveCount(): number {
    return this.cells.size;
  }

  /** Drops every idle actor now (their snapshots stay), optionally only keys under `prefix`; returns how many. */
  passivateIdle(olderThanMs = 0, prefix = ""): number {
    const now = this.options.scheduler.now();
    let dropped = 0;
    for (const cell of this.cells.values()) {
      if (!cell.key.startsWith(prefix)) continue;
      if (cell.running || cell.dirty || cell.mailbox.length > 0 || cell.timers.size > 0) continue;
      if (now - cell.lastActive < olderThanMs || !cell.kind.idle(cell.state)) continue;
      this.cells.delete(cell.key);
      dropped++;
    }
    return dropped;
  }

  /** Stops timers and the sweep; pending asks are answered UNAVAILABLE. */
  close(): void {
    this.closed = true;
    this.sweepCancel?.();
    for (const cell of this.cells.values()) {
      for (const timer of cell.timers.values()) timer.cancel();
      for (const envelope of cell.mailbox.splice(0)) envelope.resolve?.(unavailable("the node is stopping"));
    }
    this.cells.clear();
  }

  private registration(key: string): Registration | undefined {
    const slash = key.indexOf("/");
    return slash > 0 ? this.kinds.get(key.slice(0, slash)) : undefined;
  }

  private deliver(key: string, envelope: Envelope): void {
    if (this.closed) {
      envelope.resolve?.(unavailable("the node is stopping"));
      return;
    }
    const waiting = this.waiting.get(key);
    if (waiting) {
      waiting.push(envelope);
      return;
    }
    const cell = this.cells.get(key);
    if (cell && !this.loading.has(key)) {
      cell.mailbox.push(envelope);
      this.kick(cell);
      return;
    }
    // The key is not in memory (or still being created): messages wait here, in arrival order, and move
    // to the mailbox together once it is loaded, so none can overtake another.
    const queue = [envelope];
    this.waiting.set(key, queue);
    void this.load(key).then((loaded) => {
      this.waiting.delete(key);
      if (loaded) {
        loaded.mailbox.push(...queue);
        this.kick(loaded);
        return;
      }
      for (const waiter of queue) {
        if (waiter.resolve)
          waiter.resolve({ ok: false, code: "NOT_FOUND", message: `${key} does not exist` });
        else this.options.events?.deadLetter?.(key, waiter.message);
      }
    });
  }

  /** Brings an actor into memory: from its snapshot, or created on demand, or null when it does not exist. */
  private load(key: string): Promise<ActorCell | null> {
    const existing = this.loading.get(key);
    if (existing) return existing.then((cell) => cell ?? this.cells.get(key) ?? null);
    const promise = this.restore(key).finally(() => this.loading.delete(key));
    this.loading.set(key, promise);
    return promise;
  }

  private async restore(key: string): Promise<ActorCell | null> {
    const registration = this.registration(key);
    if (!registration) return null;
    let stored;
    try {
      stored = await this.options.store.read(key);
    } catch (error) {
      this.options.events?.persistFailed?.(key, error);
      return null;
    }
    if (!stored) {
      if (!registration.createOnDemand) return null;
      const created = await this.create(key, undefined, undefined);
      if (created.created) return this.cells.get(key) ?? null;
      const raced = await this.options.store.read(key);
      if (!raced) return null;
      stored = raced;
    }
    const { snapshot } = stored;
    const now = this.options.scheduler.now();
    const state = registration.kind.upgrade(snapshot.state, snapshot.schemaVersion);
    const cell = new ActorCell(
      key,
      registration.kind,
      state,
      stored.epoch,
      stored.revision,
      snapshot.seq,
      now,
    );
    for (const result of snapshot.results) cell.results.set(requestKey(result), result);
    for (const timer of snapshot.timers) {
      const at = timer.kind === "game" ? (timer.at ?? now) : now + (timer.remainingMs ?? 0);
      this.arm(cell, timer.name, timer.kind, at);
    }
    this.cells.set(key, cell);
    return cell;
  }

  private kick(cell: ActorCell): void {
    if (cell.running || cell.mailbox.length === 0) return;
    if (cell.pausedUntil > this.options.scheduler.now()) return;
    cell.running = true;
    void this.drain(cell).finally(() => {
      cell.running = false;
      if (!cell.stopped && cell.mailbox.length > 0 && !this.closed) this.kick(cell);
    });
  }

  /** Handles the mailbox in batches: fold the batch, write one snapshot, then carry out every effect in order. */
  private async drain(cell: ActorCell): Promise<void> {
    while (cell.mailbox.length > 0 && !cell.stopped && !this.closed) {
      const batch = cell.mailbox.splice(0, this.maxBatch);
      const now = this.options.scheduler.now();
      cell.lastActive = now;
      if (!this.options.node.mayAct()) {
        this.deferBatch(cell, batch, "this node's lease is not fresh");
        return;
      }
      const before = cell.state;
      const resultsBefore = cell.results.size;
      cell.timersFired = 0;
      const outcomes: Outcome[] = [];
      let state = cell.state;
      for (const envelope of batch) {
        const outcome = this.handleOne(cell, state, envelope, now);
        outcomes.push(outcome.outcome);
        state = outcome.state;
      }
      const allEffects = outcomes.flatMap((o) => o.effects);
      const stopping = allEffects.some((e) => e.type === "stop");
      const stamped = outcomes.map((o) => ({ ...o, effects: this.stampPushes(cell, o.effects) }));
      const timers = this.planTimers(cell, allEffects, now);
      const pruned = this.pruneResults(cell, now);
      const changed =
        state !== before ||
        timers.changes.length > 0 ||
        cell.timersFired > 0 ||
        cell.results.size !== resultsBefore ||
        pruned;
      const mustWrite = stopping || outcomes.some((o) => o.flush === true || (!o.volatile && changed));
      if (mustWrite && (changed || cell.dirty || stopping)) {
        const persisted = await this.persist(cell, state, timers.table, now, stopping);
        if (!persisted) {
          this.failBatch(cell, before, batch, stamped);
          return;
        }
        cell.dirty = false;
      } else if (changed) {
        this.markDirty(cell, now);
      }
      cell.state = state;
      this.applyTimers(cell, timers.changes);
      for (const outcome of stamped) this.runEffects(cell, outcome, now);
      if (stopping) {
        this.forget(cell);
        this.options.events?.stopped?.(cell.key);
      }
    }
  }

  private handleOne(
    cell: ActorCell,
    state: unknown,
    envelope: Envelope,
    now: number,
  ): { state: unknown; outcome: Outcome } {
    if (envelope.message === flushMessage) {
      return { state, outcome: { envelope, effects: [], volatile: false, flush: true } };
    }
    if (envelope.request) {
      const earlier = cell.results.get(requestKey(envelope.request));
      if (earlier) {
        return { state, outcome: { envelope, effects: [], cached: resultToAnswer(earlier), volatile: true } };
      }
    }
    const message = cell.kind.parse(envelope.message);
    if (message === undefined) {
      return {
        state,
        outcome: {
          envelope,
          effects: [rejectEffect("INVALID", "not a message this actor takes")],
          volatile: true,
        },
      };
    }
    if (isTimerMessage(message)) {
      // Only the runtime fires timers, and only the one still armed under that name counts.
      if (!envelope.timer || cell.timers.get(message.name) !== envelope.timer) {
        return { state, outcome: { envelope, effects: [], volatile: true } };
      }
      cell.timers.delete(message.name);
      cell.timersFired++;
    }
    let transition: Transition<unknown>;
    try {
      transition = cell.kind.handle(state, message, this.context(cell.key, now));
    } catch (error) {
      this.options.events?.handlerFailed?.(cell.key, error);
      return {
        state,
        outcome: { envelope, effects: [rejectEffect("INTERNAL", "the handler failed")], volatile: true },
      };
    }
    const answer = answerOf(transition.effects);
    if (envelope.request && answer && transition.state !== state) {
      cell.results.set(requestKey(envelope.request), toResult(envelope.request, now, answer));
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
    this.options.scheduler.at(now + this.volatileFlushMs, () => {
      if (cell.dirty && !cell.stopped) this.deliver(cell.key, { message: flushMessage });
    });
  }

  private async persist(
    cell: ActorCell,
    state: unknown,
    timers: readonly SnapshotTimer[],
    now: number,
    stopping: boolean,
  ): Promise<boolean> {
    try {
      if (stopping) {
        await this.options.store.remove(cell.key, cell.revision);
      } else {
        const snapshot = this.snapshotOf(cell, state, timers, cell.epoch, now);
        cell.revision = await this.options.store.write(cell.key, snapshot, cell.revision);
      }
      return true;
    } catch (error) {
      this.options.events?.persistFailed?.(cell.key, error);
      if (error instanceof PersistError && error.failure === "fenced") this.forget(cell);
      return false;
    }
  }

  /** A write that did not succeed: nothing is acknowledged, the state stays what was last written. */
  private failBatch(cell: ActorCell, before: unknown, batch: Envelope[], outcomes: readonly Outcome[]): void {
    cell.state = before;
    for (const outcome of outcomes) {
      if (outcome.envelope.request) cell.results.delete(requestKey(outcome.envelope.request));
    }
    if (cell.stopped) {
      for (const envelope of batch)
        envelope.resolve?.({ ok: false, code: "MOVED", message: `${cell.key} moved` });
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

  private runEffects(cell: ActorCell, outcome: Outcome, now: number): void {
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
          this.tell(effect.to, effect.message);
          break;
        case "spawn":
          void this.spawn(effect.key, effect.init).then((spawned) => {
            if (!spawned.created)
              this.options.events?.persistFailed?.(effect.key, new Error("spawn: key exists"));
          });
          break;
        case "timer":
        case "cancelTimer":
        case "stop":
          break;
      }
    }
    answer({ ok: true });
    cell.lastActive = now;
  }

  /** Gives every push the key, epoch and next sequence number; the snapshot then carries the last seq. */
  private stampPushes(cell: ActorCell, effects: readonly Effect[]): Effect[] {
    return effects.map((effect) => {
      if (effect.type !== "push") return effect;
      cell.seq++;
      return { ...effect, frame: { ...effect.frame, key: cell.key, epoch: cell.epoch, seq: cell.seq } };
    });
  }

  /** The timer table after the effects, and the changes to make once the write succeeded. */
  private planTimers(
    cell: ActorCell,
    effects: readonly Effect[],
    now: number,
  ): { table: SnapshotTimer[]; changes: Effect[] } {
    const table = new Map<string, { kind: "game" | "grace"; at: number }>();
    for (const [name, timer] of cell.timers) table.set(name, { kind: timer.kind, at: timer.at });
    const changes: Effect[] = [];
    for (const effect of effects) {
      if (effect.type === "timer") {
        table.set(effect.name, { kind: effect.kind, at: effect.at });
        changes.push(effect);
      } else if (effect.type === "cancelTimer") {
        if (table.delete(effect.name)) changes.push(effect);
      }
    }
    const list: SnapshotTimer[] = [];
    for (const [name, timer] of table) {
      list.push(
        timer.kind === "game"
          ? { name, kind: "game", at: timer.at }
          : { name, kind: "grace", remainingMs: Math.max(0, timer.at - now) },
      );
    }
    return { table: list, changes };
  }

  private applyTimers(cell: ActorCell, changes: readonly Effect[]): void {
    for (const change of changes) {
      if (change.type === "timer") this.arm(cell, change.name, change.kind, change.at);
      else if (change.type === "cancelTimer") {
        cell.timers.get(change.name)?.cancel();
        cell.timers.delete(change.name);
      }
    }
  }

  private arm(cell: ActorCell, name: string, kind: "game" | "grace", at: number): void {
    cell.timers.get(name)?.cancel();
    const timer: ArmedTimer = {
      kind,
      at,
      cancel: this.options.scheduler.at(at, () => {
        if (cell.timers.get(name) === timer)
          this.deliver(cell.key, { message: { type: "timer", name }, timer });
      }),
    };
    cell.timers.set(name, timer);
  }

  private pruneResults(cell: ActorCell, now: number): boolean {
    let pruned = false;
    for (const [id, result] of cell.results) {
      if (now - result.at > this.retentionMs) {
        cell.results.delete(id);
        pruned = true;
      }
    }
    return pruned;
  }

  private snapshotOf(
    cell: ActorCell,
    state: unknown,
    timers: readonly SnapshotTimer[],
    epoch: number,
    now: number,
  ): Snapshot {
    this.writeCounter++;
    return {
      format: 1,
      kind: cell.kind.kind,
      schemaVersion: cell.kind.schemaVersion,
      key: cell.key,
      epoch,
      seq: cell.seq,
      writeId: `${now.toString(36)}-${this.writeCounter.toString(36)}-${this.options.random.int(2 ** 31).toString(36)}`,
      state,
      timers,
      results: [...cell.results.values()],
    };
  }

  private forget(cell: ActorCell): void {
    cell.stopped = true;
    for (const timer of cell.timers.values()) timer.cancel();
    cell.timers.clear();
    this.cells.delete(cell.key);
    for (const envelope of cell.mailbox.splice(0)) this.deliver(cell.key, envelope);
  }

  private context(key: string, now: number): ActorContext {
    const node = this.options.node;
    return {
      key,
      now,
      random: this.options.random,
      node: { canOpenRoom: node.canOpenRoom(), draining: node.draining() },
    };
  }

  private scheduleSweep(): void {
    const every = Math.max(1_000, this.passivateAfterMs / 2);
    this.sweepCancel = this.options.scheduler.at(this.options.scheduler.now() + every, () => {
      if (this.closed) return;
      this.passivateIdle(this.passivateAfterMs);
      this.scheduleSweep();
    });
  }
}

function isTimerMessage(message: unknown): message is { type: "timer"; name: string } {
  return (message as { type?: unknown }).type === "timer";
}

function answerOf(effects: readonly Effect[]): AskResult | undefined {
  for (const effect of effects) {
    if (effect.type === "reply")
      return effect.value === undefined ? { ok: true } : { ok: true, value: effect.value };
    if (effect.type === "reject") return rejection(effect);
  }
  return undefined;
}

function rejection(effect: Extract<Effect, { type: "reject" }>): AskResult {
  return effect.retryAfterMs === undefined
    ? { ok: false, code: effect.code, message: effect.message }
    : { ok: false, code: effect.code, message: effect.message, retryAfterMs: effect.retryAfterMs };
}

function toResult(request: RequestId, at: number, answer: AskResult): SnapshotResult {
  if (answer.ok) {
    return answer.value === undefined
      ? { session: request.session, id: request.id, at, ok: true }
      : { session: request.session, id: request.id, at, ok: true, value: answer.value };
  }
  return {
    session: request.session,
    id: request.id,
    at,
    ok: false,
    code: answer.code,
    message: answer.message,
  };
}

function rejectEffect(code: ErrorCode, message: string): Effect {
  return { type: "reject", code, message };
}

function unavailable(message: string): AskResult {
  return { ok: false, code: "UNAVAILABLE", message, retryAfterMs: retryLaterMs };
}

function invalid(message: string): AskResult {
  return { ok: false, code: "INVALID", message };
}
