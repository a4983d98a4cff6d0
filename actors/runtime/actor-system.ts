import { ActorCell, type Envelope } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import { planTimers, restoredDeadline } from "./cell-timers.ts";
import { MailboxRunner } from "./mailbox-runner.ts";
import {
  PersistError,
  type ClaimOwner,
  type Location,
  type Router,
  type Snapshot,
  type SnapshotSpawn,
  type SnapshotTimer,
  type StoredActor,
} from "./ports.ts";
import {
  answerOf,
  defaultResultRetentionMs,
  defaultResultSessions,
  maxResultsPerSession,
  retryLaterMs,
  toResult,
  unavailable,
  type ResultBounds,
} from "./request-results.ts";
import type { ActorContext, ActorKind, AskResult, RequestId, Transition } from "./types.ts";

export type { ActorSystemOptions, RuntimeEvents } from "./actor-system-options.ts";

interface Registration {
  readonly kind: ActorKind<unknown, unknown>;
  /** Keys of this kind that have no snapshot are created on their first message (player, directory). */
  readonly createOnDemand: boolean;
}

/**
 * Where the messages of a key prefix go when they are served outside the actors (the matchmaking filter
 * pool): told, never asked, and never stored.
 */
export interface Endpoint {
  tell(key: string, message: unknown): void;
}

/** The key's claim names another node (or an older incarnation of this one). */
interface Elsewhere {
  readonly elsewhere: string;
}

/** Why a key could not be brought into memory. */
type LoadFailure = "missing" | "unavailable" | "corrupt" | Elsewhere;

type Spawned = { created: false } | { created: true; result: AskResult };

/** A create, and when it lost a claim race, the claim that won. */
type Creation = Spawned | { created: false; owner: ClaimOwner };

/** A message waiting while its key is located or loaded; `here` ones are never sent to another node. */
interface Waiter {
  readonly envelope: Envelope;
  readonly here: boolean;
}

/** How a spawn effect ended: its actor is stored, or why not. */
type SpawnOutcome = { readonly stored: true } | { readonly stored: false; readonly why: string };
const spawnStored: SpawnOutcome = { stored: true };

/** A request that finds its actor moving past the buffer's bound tries again after this long. */
const frozenRetryMs = 200;

/**
 * How long a restore waits for a spawn written in its snapshot to exist (see `settleSpawn`): past a
 * failover's detection and the freeing of the dead creator's orphaned claim, with room to spare.
 */
const settleSpawnForMs = 60_000;
/** How often it looks again meanwhile. */
const settleSpawnRetryMs = 500;

const moved = (key: string): AskResult => ({
  ok: false,
  code: "MOVED",
  message: `${key} is not on this node`,
  retryAfterMs: retryLaterMs,
});

const failureAnswers: Record<Exclude<LoadFailure, Elsewhere>, (key: string) => AskResult> = {
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
  private readonly endpoints = new Map<string, Endpoint>();
  private readonly cells = new Map<string, ActorCell>();
  private readonly loading = new Map<string, Promise<ActorCell | LoadFailure>>();
  private readonly waiting = new Map<string, Waiter[]>();
  private readonly runner: MailboxRunner;
  private readonly resultBounds: ResultBounds;
  private sweepCancel: (() => void) | undefined;
  private writeCounter = 0;
  private closed = false;
  /** Bumped by dropAll: a restore that started before it must not bring its actor back. */
  private generation = 0;

  constructor(private readonly options: ActorSystemOptions) {
    this.resultBounds = {
      retentionMs: options.resultRetentionMs ?? defaultResultRetentionMs,
      maxSessions: options.resultSessions ?? defaultResultSessions,
      perSession: maxResultsPerSession,
    };
    this.runner = new MailboxRunner(options, {
      deliver: (key, envelope) => {
        this.deliver(key, envelope);
      },
      spawnFromEffect: async (key, init, from, node) => {
        const outcome = await this.spawnChild(key, init, node);
        if (outcome.stored) return true;
        options.events?.persistFailed?.(key, new Error(`spawn from ${from} failed: ${outcome.why}`));
        this.deliver(from, { message: { type: "spawnFailed", key } });
        return false;
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

  /**
   * Serves `<prefix>/…` with an endpoint outside the actors. An ask to it is answered INVALID: an endpoint
   * answers, if at all, with a message of its own.
   */
  mount(prefix: string, endpoint: Endpoint): this {
    this.endpoints.set(prefix, endpoint);
    return this;
  }

  /**
   * Sends a message and waits for the actor's answer (or the deadline). Never rejects. With a router, a
   * key owned by another node is asked there; `here` (a message another node forwarded) never leaves
   * this node: a key not owned here is answered `MOVED`.
   */
  ask(
    key: string,
    message: unknown,
    opts: { request?: RequestId; timeoutMs?: number; here?: boolean } = {},
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
        opts.here ?? false,
      );
    });
  }

  /**
   * Sends a message without waiting. A key with no actor drops it (reported as a dead letter); with a
   * router, a key owned by another node is sent there (`here`: as for ask).
   */
  tell(key: string, message: unknown, opts: { here?: boolean } = {}): void {
    this.deliver(key, { message }, opts.here ?? false);
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
      const created = await creating;
      return created.created ? created : { created: false };
    } finally {
      this.loading.delete(key);
    }
  }

  /**
   * Creates the actor of a spawn effect: here, or on `node` when it names another node. Resolves
   * `stored` once the actor and its first snapshot are written; otherwise why not.
   */
  private async spawnChild(key: string, init: unknown, node?: string): Promise<SpawnOutcome> {
    const router = this.options.router;
    if (node !== undefined && router?.spawnAt !== undefined && node !== router.node) {
      const timeoutMs = this.options.askTimeoutMs ?? 5_000;
      const result = await router.spawnAt(node, key, init, { timeoutMs });
      return result.ok
        ? spawnStored
        : { stored: false, why: `${node} answered ${result.code}: ${result.message}` };
    }
    const spawned = await this.spawn(key, init);
    if (!spawned.created) return { stored: false, why: "the key is taken" };
    return spawned.result.ok ? spawnStored : { stored: false, why: `refused: ${spawned.result.message}` };
  }

  /**
   * Makes sure the actor of a spawn written in a restored snapshot exists (see MailboxRunner, "Spawns
   * before what they cause"): its creator wrote the change that caused it and then stopped before the
   * spawn was known to be stored. A key with a snapshot is taken to be that spawn's; a free key is
   * spawned again (here, when the node it was placed on does not take it, past this node's room
   * limits). A claim without a snapshot (the dead creator's orphan) reads as free, but the spawn finds it
   * taken, and so it is tried again until failover has freed it. True once it exists; false at the
   * deadline, when the creator is told `spawnFailed` as a live spawn's creator would be.
   */
  private async settleSpawn(from: string, spawn: SnapshotSpawn): Promise<boolean> {
    const { scheduler } = this.options;
    const deadline = scheduler.now() + settleSpawnForMs;
    for (;;) {
      let existing: StoredActor | null | undefined;
      try {
        existing = await this.options.store.read(spawn.key);
      } catch {
        existing = undefined; // an orphaned claim being freed, or the store not answering: wait
      }
      if (existing) return true;
      if (existing === null) {
        if ((await this.spawnChild(spawn.key, spawn.init, spawn.node)).stored) return true;
        if (spawn.node !== undefined && (await this.spawnChild(spawn.key, spawn.init)).stored) return true;
      }
      if (scheduler.now() + settleSpawnRetryMs > deadline || this.closed) break;
      await new Promise<void>((resolve) => scheduler.at(scheduler.now() + settleSpawnRetryMs, resolve));
    }
    this.options.events?.persistFailed?.(spawn.key, new Error(`spawn from ${from} not settled`));
    this.deliver(from, { message: { type: "spawnFailed", key: spawn.key } });
    return false;
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
      if (cell.running || cell.frozen || cell.dirty || cell.mailbox.length > 0 || cell.timers.size > 0)
        continue;
      if (now - cell.lastActive < olderThanMs || !cell.kind.idle(cell.state)) continue;
      this.cells.delete(cell.key);
      dropped++;
    }
    return dropped;
  }

  /**
   * Freezes a live actor for a migration (FLEET-PROTOCOL, "Migration" 1–2): once the batch in flight is
   * written, its mailbox stops running and keeps every later message in order — asks past
   * `maxBuffered` are refused UNAVAILABLE (retried by clients), never dropped silently. Resolves with the
   * epoch and revision of its last written snapshot, or null when the key is not live here, pinned to
   * this node (see ActorKind.pinned), or holds changes not yet written.
   */
  async freeze(key: string, maxBuffered = 256): Promise<{ epoch: number; revision: number } | null> {
    const cell = this.cells.get(key);
    if (!cell || cell.frozen || this.loading.has(key)) return null;
    if (cell.dirty || cell.kind.pinned?.(cell.state) === true) return null;
    cell.frozen = true;
    cell.maxBuffered = maxBuffered;
    if (cell.running) await new Promise<void>((resolve) => cell.idleWaiters.push(resolve));
    // The last batch may have pinned it (a start) or failed to write: it stays, running again.
    if (!this.movable(cell)) {
      this.thaw(key);
      return null;
    }
    return { epoch: cell.epoch, revision: cell.revision };
  }

  /** Read afresh after the batch in flight: still live, all written, not pinned. */
  private movable(cell: ActorCell): boolean {
    return !cell.stopped && !cell.dirty && cell.kind.pinned?.(cell.state) !== true;
  }

  /** Ends a freeze: the actor runs its buffered messages here (a migration that did not happen). */
  thaw(key: string): void {
    const cell = this.cells.get(key);
    if (!cell?.frozen) return;
    cell.frozen = false;
    this.runner.kick(cell);
  }

  /**
   * Lets go of a frozen actor whose key another node has adopted (the router already names it): the cell
   * is dropped without a write, and its buffered messages are delivered again, in order — to the new
   * owner through the router, or here after a reload if this node took the key back.
   */
  handOver(key: string): void {
    const cell = this.cells.get(key);
    if (!cell) return;
    cell.frozen = false;
    this.forget(cell);
  }

  /** True when the live actor `key` must stay on this node for now (see ActorKind.pinned). */
  pinned(key: string): boolean {
    const cell = this.cells.get(key);
    return cell !== undefined && cell.kind.pinned?.(cell.state) === true;
  }

  /**
   * Drops every actor at once, writing nothing: this node was declared dead and other nodes own its keys
   * now. Pending asks are answered UNAVAILABLE (clients retry them elsewhere); the system keeps running
   * for the node's next incarnation. Returns how many actors were dropped.
   */
  dropAll(): number {
    this.generation++;
    const dropped = this.cells.size;
    for (const cell of this.cells.values()) {
      cell.stopped = true;
      for (const timer of cell.timers.values()) timer.cancel();
      cell.timers.clear();
      for (const envelope of cell.mailbox.splice(0)) {
        envelope.resolve?.(unavailable("this node was declared dead; retry"));
      }
    }
    this.cells.clear();
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
  private async create(key: string, init: unknown, request: RequestId | undefined): Promise<Creation> {
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
    const cell = new ActorCell(key, registration.kind, transition.state, 0, 0, 0, now, this.resultBounds);
    const answer = answerOf(transition.effects);
    if (request && answer) cell.results.add(toResult(request, now, answer));
    const pending = planTimers(cell, transition.effects, new Map(), now);
    // The numbers stampPushes will give: one per push, and one for events that no push numbers.
    const frames = transition.effects.filter((e) => e.type === "push").length;
    const events = transition.effects.some((e) => e.type === "event");
    const pushes = frames === 0 && events ? 1 : frames;
    const generation = this.generation;
    try {
      const claimed = await this.options.store.create(key, (epoch) => {
        cell.seq = pushes;
        return this.snapshotOf(cell, transition.state, pending.table, epoch, now);
      });
      cell.epoch = claimed.epoch;
      cell.revision = claimed.revision;
      cell.seq = 0;
      this.options.events?.persisted?.(key, this.options.scheduler.now() - now);
    } catch (error) {
      if (error instanceof PersistError && error.failure === "exists")
        return error.owner ? { created: false, owner: error.owner } : { created: false };
      this.options.events?.persistFailed?.(key, error);
      return { created: true, result: unavailable("the store did not take the new actor") };
    }
    const effects = this.runner.stampPushes(cell, transition.effects);
    // This node was declared dead while the claim was in flight (its actors dropped, or about to be:
    // the lease says so first): the key is another node's now, which restores what was written but does
    // not say it again. So what it causes elsewhere happens, and nothing is said to players. Found by
    // `foyer chaos` (seed 2040): a create in flight across a SIGSTOP put its actor into the node's next
    // incarnation, which then spoke for it under the old epoch.
    if (!(await this.runner.leaseHeld()) || generation !== this.generation || this.closed) {
      const why = "this node was declared dead; retry";
      this.runner.runSilenced(key, [{ envelope: { message: init }, effects, volatile: false }], why);
      return { created: true, result: unavailable(why) };
    }
    this.cells.set(key, cell);
    this.options.events?.created?.(key);
    this.runner.applyTimers(cell, pending.changes);
    this.runner.runEffects(key, { envelope: { message: init }, effects, volatile: false });
    this.runner.kick(cell);
    return { created: true, result: answer ?? { ok: true } };
  }

  private registration(key: string): Registration | undefined {
    const slash = key.indexOf("/");
    return slash > 0 ? this.kinds.get(key.slice(0, slash)) : undefined;
  }

  private deliver(key: string, envelope: Envelope, here = false): void {
    if (this.closed) {
      envelope.resolve?.(unavailable("the node is stopping"));
      return;
    }
    const endpoint = this.endpoints.get(key.slice(0, Math.max(0, key.indexOf("/"))));
    if (endpoint !== undefined) {
      if (envelope.resolve) envelope.resolve({ ok: false, code: "INVALID", message: `${key} takes no asks` });
      else endpoint.tell(key, envelope.message);
      return;
    }
    const waiting = this.waiting.get(key);
    if (waiting) {
      waiting.push({ envelope, here });
      return;
    }
    const cell = this.cells.get(key);
    if (cell && !this.loading.has(key)) {
      if (cell.frozen && envelope.resolve && cell.mailbox.length >= cell.maxBuffered) {
        envelope.resolve(unavailable(`${key} is moving to another node`, frozenRetryMs));
        return;
      }
      cell.mailbox.push(envelope);
      this.runner.kick(cell);
      return;
    }
    // The key is not in memory (or still being created): messages wait here, in arrival order, and move
    // to the mailbox together once it is loaded, so none can overtake another.
    const queue: Waiter[] = [{ envelope, here }];
    this.waiting.set(key, queue);
    const router = this.options.router;
    if (router === undefined || here) {
      void this.load(key).then((loaded) => {
        this.loaded(key, loaded);
      });
      return;
    }
    void this.locate(router, key).then((location) => {
      if (location.kind === "unavailable") {
        this.waiting.delete(key);
        for (const { envelope } of queue) {
          if (envelope.resolve)
            envelope.resolve(unavailable(`${key} awaits its owner`, location.retryAfterMs));
          else this.options.events?.deadLetter?.(key, envelope.message);
        }
        return;
      }
      if (location.kind !== "remote") {
        void this.load(key).then((loaded) => {
          this.loaded(key, loaded);
        });
        return;
      }
      this.waiting.delete(key);
      for (const waiter of queue) {
        if (waiter.here) this.deliver(key, waiter.envelope, true);
        else this.forward(router, location.node, key, waiter.envelope);
      }
    });
  }

  /** Hands the waiting messages of `key` to its loaded cell, or answers them with why it did not load. */
  private loaded(key: string, loaded: ActorCell | LoadFailure): void {
    const queue = this.waiting.get(key) ?? [];
    this.waiting.delete(key);
    if (loaded instanceof ActorCell) {
      loaded.mailbox.push(...queue.map((waiter) => waiter.envelope));
      this.runner.kick(loaded);
      return;
    }
    const router = this.options.router;
    for (const { envelope, here } of queue) {
      if (typeof loaded !== "string") {
        // Claimed by another node: carry it there, unless it was carried here (no ping-pong) or the
        // claim names this node's older incarnation (a failover matter: retry later).
        if (!here && router !== undefined && loaded.elsewhere !== router.node) {
          this.forward(router, loaded.elsewhere, key, envelope);
        } else if (envelope.resolve) {
          envelope.resolve(
            here || router === undefined ? moved(key) : unavailable(`${key} awaits its owner`),
          );
        } else this.options.events?.deadLetter?.(key, envelope.message);
      } else if (envelope.resolve) envelope.resolve(failureAnswers[loaded](key));
      else this.options.events?.deadLetter?.(key, envelope.message);
    }
  }

  /** Asks the router where `key` lives; a router that fails is taken to mean "not known". */
  private async locate(router: Router, key: string): Promise<Location> {
    try {
      return await router.locate(key);
    } catch (error) {
      this.options.events?.persistFailed?.(key, error);
      return { kind: "unknown" };
    }
  }

  /** Sends one message to the node that owns `key`; a `MOVED` answer makes it look once more. */
  private forward(router: Router, node: string, key: string, envelope: Envelope): void {
    const resolve = envelope.resolve;
    if (resolve === undefined) {
      router.forwardTell(node, key, envelope.message);
      return;
    }
    const forwarded = envelope.request
      ? { message: envelope.message, request: envelope.request }
      : { message: envelope.message };
    void router
      .forward(node, key, forwarded, { timeoutMs: this.options.askTimeoutMs ?? 5_000 })
      .then((result) => {
        if (!result.ok && result.code === "MOVED" && envelope.rerouted !== true) {
          router.invalidate(key);
          this.deliver(key, { ...envelope, rerouted: true });
          return;
        }
        resolve(result);
      });
  }

  /** Brings an actor into memory: from its snapshot, or created on demand. Never rejects. */
  private load(key: string): Promise<ActorCell | LoadFailure> {
    const existing = this.loading.get(key);
    if (existing)
      return existing.then((loaded) =>
        loaded instanceof ActorCell ? loaded : (this.cells.get(key) ?? loaded),
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
    const generation = this.generation;
    let stored: StoredActor | null;
    try {
      stored = await this.options.store.read(key);
    } catch (error) {
      this.options.events?.persistFailed?.(key, error);
      return "unavailable";
    }
    if (!stored) {
      if (!registration.createOnDemand) return "missing";
      const created = await this.create(key, undefined, undefined);
      if (created.created) {
        const live = this.cells.get(key);
        if (live !== undefined) return live;
        return !created.result.ok && created.result.code === "UNAVAILABLE" ? "unavailable" : "missing";
      }
      // Lost the claim race: the winner owns it (its first snapshot may not be written yet).
      if ("owner" in created && !created.owner.mine) return { elsewhere: created.owner.node };
      stored = await this.options.store.read(key);
      if (!stored) return "missing";
    }
    // Restored only by the process its claim names: any other would be a second live copy.
    if (!stored.owner.mine) return { elsewhere: stored.owner.node };
    if (generation !== this.generation) return "unavailable";
    if (stored.snapshot.spawning !== undefined) {
      const settled = await this.settleSpawns(key, stored);
      if (settled === null || generation !== this.generation) return "unavailable";
      stored = settled;
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
      this.resultBounds,
    );
    // In the order they were written (see ResultTable), then bounded: a snapshot of an older release may
    // hold every session of the last two minutes.
    for (const result of snapshot.results) cell.results.add(result);
    cell.results.trim(now);
    for (const timer of snapshot.timers)
      this.runner.arm(cell, timer.name, timer.kind, restoredDeadline(timer, now));
    this.cells.set(key, cell);
    return cell;
  }

  /**
   * Settles the spawns a restored snapshot names (see `settleSpawn`), then writes it again without them,
   * before the actor runs: once that write has landed, no restore will spawn them again, so a child that
   * has ended since is never brought back. Null when the store did not take that write.
   */
  private async settleSpawns(key: string, stored: StoredActor): Promise<StoredActor | null> {
    const { spawning, ...snapshot } = stored.snapshot;
    await Promise.all((spawning ?? []).map((spawn) => this.settleSpawn(key, spawn)));
    const now = this.options.scheduler.now();
    const written = { ...snapshot, epoch: stored.epoch, writeId: this.newWriteId(now) };
    try {
      const revision = await this.options.store.write(key, written, stored.revision);
      // The wait may have been long: another node may have sealed the key since (a takeover or a
      // migration that found it not live here), writing our snapshot over under its own epoch.
      const again = await this.options.store.read(key);
      if (again?.owner.mine !== true || again.revision !== revision) return null;
      return again;
    } catch (error) {
      this.options.events?.persistFailed?.(key, error);
      return null;
    }
  }

  private newWriteId(now: number): string {
    this.writeCounter++;
    return `${now.toString(36)}-${this.writeCounter.toString(36)}-${this.options.random.int(2 ** 31).toString(36)}`;
  }

  private snapshotOf(
    cell: ActorCell,
    state: unknown,
    timers: readonly SnapshotTimer[],
    epoch: number,
    now: number,
  ): Snapshot {
    const writeId = this.newWriteId(now);
    return {
      format: 1,
      kind: cell.kind.kind,
      schemaVersion: cell.kind.schemaVersion,
      key: cell.key,
      epoch,
      seq: cell.seq,
      writeId,
      state: cell.kind.stored ? cell.kind.stored(state) : state,
      timers,
      results: cell.results.list(),
      ...(cell.spawning.length > 0 ? { spawning: cell.spawning } : {}),
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
      node: {
        canOpenRoom: node.canOpenRoom(),
        draining: node.draining(),
        get roomHost() {
          return node.roomHost?.();
        },
      },
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
