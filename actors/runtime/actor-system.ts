import { ActorCell, type Envelope } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import { planTimers, restoredDeadline } from "./cell-timers.ts";
import { MailboxRunner } from "./mailbox-runner.ts";
import { PersistError, type Snapshot, type SnapshotTimer, type StoredSnapshot } from "./ports.ts";
import { answerOf, requestKey, toResult, unavailable } from "./request-results.ts";
import type { ActorContext, ActorKind, AskResult, RequestId, Transition } from "./types.ts";

export type { ActorSystemOptions, RuntimeEvents } from "./actor-system-options.ts";

interface Registration {
  readonly kind: ActorKind<unknown, unknown>;
  /** Keys of this kind that have no snapshot are created on their first message (player, directory). */
  readonly createOnDemand: boolean;
}

/** Why a key could not be brought into memory. */
type LoadFailure = "missing" | "unavailable" | "corrupt";

type Spawned = { created: false } | { created: true; result: AskResult };

const failureAnswers: Record<LoadFailure, (key: string) => AskResult> = {
  missing: (key) => ({ ok: false, code: "NOT_FOUND", message: `${key} does not exist` }),
  unavailable: () => unavailable("the store cannot be read now"),
  corrupt: (key) => ({ ok: false, code: "INTERNAL", message: `${key} cannot be restored` }),
};

/**
 * The actor runtime: one mailbox per key, messages handled one at a time, the new state persisted before
 * any effect is carried out (persist before acknowledging), supervision, timers as absolute deadlines,
 * request-id deduplication kept in the snapshot, and passivation of idle actors.
 */
export class ActorSystem {
  private readonly kinds = new Map<string, Registration>();
  private readonly cells = new Map<string, ActorCell>();
  private readonly loading = new Map<string, Promise<ActorCell | LoadFailure>>();
  private readonly waiting = new Map<string, Envelope[]>();
  private readonly runner: MailboxRunner;
  private sweepCancel: (() => void) | undefined;
  private writeCounter = 0;
  private closed = false;

  constructor(private readonly options: ActorSystemOptions) {
    this.runner = new MailboxRunner(options, {
      deliver: (key, envelope) => {
        this.deliver(key, envelope);
      },
      spawnFromEffect: (key, init, from) => {
        void this.spawn(key, init).then((spawned) => {
          if (spawned.created && spawned.result.ok) return;
          options.events?.persistFailed?.(key, new Error(`spawn from ${from} failed`));
          this.deliver(from, { message: { type: "spawnFailed", key } });
        });
      },
      forget: (cell) => {
        this.forget(cell);
      },
      context: (key, now) => this.context(key, now),
      snapshotOf: (cell, state, timers, epoch, now) => this.snapshotOf(cell, state, timers, epoch, now),
      isClosed: () => this.closed,
    });
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
    const scheduler = this.options.scheduler;
    return new Promise<AskResult>((resolve) => {
      let done = false;
      const finish = (result: AskResult): void => {
        if (done) return;
        done = true;
        cancel();
        resolve(result);
      };
      const cancel = scheduler.at(
        scheduler.now() + (opts.timeoutMs ?? this.options.askTimeoutMs ?? 5_000),
        () => {
          finish({ ok: false, code: "TIMEOUT", message: `${key} did not answer in time` });
        },
      );
      this.deliver(
        key,
        opts.request ? { message, request: opts.request, resolve: finish } : { message, resolve: finish },
      );
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
  async spawn(key: string, init: unknown, opts: { request?: RequestId } = {}): Promise<Spawned> {
    if (this.cells.has(key) || this.loading.has(key)) return { created: false };
    const creating = this.create(key, init, opts.request);
    this.loading.set(
      key,
      creating.then((r) => (r.created ? (this.cells.get(key) ?? "missing") : "missing")),
    );
    try {
      return await creating;
    } finally {
      this.loading.delete(key);
    }
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

  /** Runs the kind's `create`, claims the key with the first snapshot, then carries out the effects. */
  private async create(key: string, init: unknown, request: RequestId | undefined): Promise<Spawned> {
    const registration = this.registration(key);
    if (!registration)
      return {
        created: true,
        result: { ok: false, code: "INVALID", message: `no actor kind serves ${key}` },
      };
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
    const pending = planTimers(cell, transition.effects, new Map(), now);
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
    this.runner.applyTimers(cell, pending.changes);
    const effects = this.runner.stampPushes(cell, transition.effects);
    this.runner.runEffects(key, { envelope: { message: init }, effects, volatile: false });
    this.runner.kick(cell);
    return { created: true, result: answer ?? { ok: true } };
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
      this.runner.kick(cell);
      return;
    }
    // The key is not in memory (or still being created): messages wait here, in arrival order, and move
    // to the mailbox together once it is loaded, so none can overtake another.
    const queue = [envelope];
    this.waiting.set(key, queue);
    void this.load(key).then((loaded) => {
      this.waiting.delete(key);
      if (typeof loaded !== "string") {
        loaded.mailbox.push(...queue);
        this.runner.kick(loaded);
        return;
      }
      for (const waiter of queue) {
        if (waiter.resolve) waiter.resolve(failureAnswers[loaded](key));
        else this.options.events?.deadLetter?.(key, waiter.message);
      }
    });
  }

  /** Brings an actor into memory: from its snapshot, or created on demand. Never rejects. */
  private load(key: string): Promise<ActorCell | LoadFailure> {
    const existing = this.loading.get(key);
    if (existing)
      return existing.then((loaded) =>
        typeof loaded === "string" ? (this.cells.get(key) ?? loaded) : loaded,
      );
    const promise = this.restore(key)
      .catch((error: unknown): LoadFailure => {
        this.options.events?.persistFailed?.(key, error);
        return "corrupt";
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, promise);
    return promise;
  }

  private async restore(key: string): Promise<ActorCell | LoadFailure> {
    const registration = this.registration(key);
    if (!registration) return "missing";
    let stored: (StoredSnapshot & { epoch: number }) | null;
    try {
      stored = await this.options.store.read(key);
    } catch (error) {
      this.options.events?.persistFailed?.(key, error);
      return "unavailable";
    }
    if (!stored) {
      if (!registration.createOnDemand) return "missing";
      const created = await this.create(key, undefined, undefined);
      if (created.created) return this.cells.get(key) ?? "missing";
      stored = await this.options.store.read(key);
      if (!stored) return "missing";
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
    for (const timer of snapshot.timers)
      this.runner.arm(cell, timer.name, timer.kind, restoredDeadline(timer, now));
    this.cells.set(key, cell);
    return cell;
  }

  private snapshotOf(
    cell: ActorCell,
    state: unknown,
    timers: readonly SnapshotTimer[],
    epoch: number,
    now: number,
  ): Snapshot {
    this.writeCounter++;
    const writeId = `${now.toString(36)}-${this.writeCounter.toString(36)}-${this.options.random.int(2 ** 31).toString(36)}`;
    return {
      format: 1,
      kind: cell.kind.kind,
      schemaVersion: cell.kind.schemaVersion,
      key: cell.key,
      epoch,
      seq: cell.seq,
      writeId,
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
    const passivateAfterMs = this.options.passivateAfterMs ?? 60_000;
    const every = Math.max(1_000, passivateAfterMs / 2);
    this.sweepCancel = this.options.scheduler.at(this.options.scheduler.now() + every, () => {
      if (this.closed) return;
      this.passivateIdle(passivateAfterMs);
      this.scheduleSweep();
    });
  }
}
