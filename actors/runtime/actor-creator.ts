import { ActorCell, type Envelope } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import type { ActorTable } from "./actor-table.ts";
import { planTimers } from "./cell-timers.ts";
import type { MailboxRunner } from "./mailbox-runner.ts";
import { PersistError, type ClaimOwner, type SnapshotSpawn } from "./ports.ts";
import { answerOf, toResult, unavailable, type ResultBounds } from "./request-results.ts";
import type { SnapshotMaker } from "./snapshot-maker.ts";
import type { ActorContext, AskResult, RequestId, Transition } from "./types.ts";

/** How a spawn ended: the key was already claimed, or the creation's answer. */
export type Spawned = { created: false } | { created: true; result: AskResult };

/** A create, and when it lost a claim race, the claim that won. */
export type Creation = Spawned | { created: false; owner: ClaimOwner };

/** How a spawn effect ended: its actor is stored, or why not. */
export type SpawnOutcome = { readonly stored: true } | { readonly stored: false; readonly why: string };
const spawnStored: SpawnOutcome = { stored: true };

/** What creating an actor needs from the system besides its table and runner. */
export interface CreatorHost {
  readonly runner: MailboxRunner;
  readonly snapshots: SnapshotMaker;
  readonly resultBounds: ResultBounds;
  deliver(key: string, envelope: Envelope): void;
  context(key: string, now: number): ActorContext;
}

/** Creates actors: a spawn asked for from outside, a spawn effect (here or on another node), a create on demand. */
export class ActorCreator {
  constructor(
    private readonly table: ActorTable,
    private readonly options: ActorSystemOptions,
    private readonly host: CreatorHost,
  ) {}

  /** See ActorSystem.spawn. */
  async spawn(key: string, init: unknown, opts: { request?: RequestId } = {}): Promise<Spawned> {
    if (this.table.cells.has(key) || this.table.loading.has(key)) return { created: false };
    const creating = this.create(key, init, opts.request);
    this.table.loading.set(
      key,
      creating.then((r) => (r.created ? (this.table.cells.get(key) ?? "missing") : "missing")),
    );
    try {
      const created = await creating;
      return created.created ? created : { created: false };
    } finally {
      this.table.loading.delete(key);
    }
  }

  /**
   * Creates the actor of a spawn effect (on its `node` when it names another node). Resolves true once
   * it is stored, after telling `from` `spawned` when the spawn asks for a confirmation; false when it
   * could not be created, after telling `from` `spawnFailed`.
   */
  async spawnFromEffect(spawn: SnapshotSpawn, from: string): Promise<boolean> {
    const { key } = spawn;
    const outcome = await this.spawnChild(key, spawn.init, spawn.node);
    if (outcome.stored || (spawn.reask === true && (await this.stored(key)))) {
      if (spawn.confirm === true) this.host.deliver(from, { message: { type: "spawned", key } });
      return true;
    }
    this.options.events?.persistFailed?.(key, new Error(`spawn from ${from} failed: ${outcome.why}`));
    this.host.deliver(from, { message: { type: "spawnFailed", key } });
    return false;
  }

  /** True when `key` has a snapshot (a reasked spawn's first try made it); false also when unreadable. */
  private async stored(key: string): Promise<boolean> {
    try {
      return (await this.options.store.read(key)) !== null;
    } catch {
      return false;
    }
  }

  /**
   * Creates the actor of a spawn effect: here, or on `node` when it names another node. Resolves
   * `stored` once the actor and its first snapshot are written; otherwise why not.
   */
  async spawnChild(key: string, init: unknown, node?: string): Promise<SpawnOutcome> {
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

  /** Runs the kind's `create`, claims the key with the first snapshot, then carries out the effects. */
  async create(key: string, init: unknown, request: RequestId | undefined): Promise<Creation> {
    const registration = this.table.registration(key);
    if (!registration)
      return {
        created: true,
        result: { ok: false, code: "INVALID", message: `no actor kind serves ${key}` },
      };
    const now = this.options.scheduler.now();
    let transition: Transition<unknown>;
    try {
      transition = registration.kind.create(init, this.host.context(key, now));
    } catch (error) {
      this.options.events?.handlerFailed?.(key, error);
      return { created: true, result: { ok: false, code: "INTERNAL", message: "create failed" } };
    }
    const cell = new ActorCell(
      key,
      registration.kind,
      transition.state,
      0,
      0,
      0,
      now,
      this.host.resultBounds,
    );
    const answer = answerOf(transition.effects);
    if (request && answer) cell.results.add(toResult(request, now, answer));
    const pending = planTimers(cell, transition.effects, new Map(), now);
    // The numbers stampPushes will give: one per push, and one for events that no push numbers.
    const frames = transition.effects.filter((e) => e.type === "push").length;
    const events = transition.effects.some((e) => e.type === "event");
    const pushes = frames === 0 && events ? 1 : frames;
    const generation = this.table.generation;
    // A node without its lease claims nothing. Fenced and not rejoined yet, its claim would name an
    // incarnation no heartbeat has announced: peers cannot tell that one dead, and none would take the
    // key over if the node died before it rejoined. The lease is asked as it is now, not waited for: a
    // node cut off from the store keeps a stale lease until it learns it was fenced, which can take many
    // seconds, and the client waits for this answer before it tries another node.
    if (!this.options.node.mayAct()) {
      return { created: true, result: unavailable("this node holds no lease; retry") };
    }
    try {
      const claimed = await this.options.store.create(key, (epoch) => {
        cell.seq = pushes;
        return this.host.snapshots.snapshotOf(cell, transition.state, pending.table, epoch, now);
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
    const effects = this.host.runner.stampPushes(cell, transition.effects);
    // This node was declared dead while the claim was in flight (its actors dropped, or about to be:
    // the lease says so first): the key is another node's now, which restores what was written but does
    // not say it again. So what it causes elsewhere happens, and nothing is said to players. Found by
    // `foyer chaos` (seed 2040): a create in flight across a SIGSTOP put its actor into the node's next
    // incarnation, which then spoke for it under the old epoch.
    if (!(await this.host.runner.leaseHeld()) || generation !== this.table.generation || this.table.closed) {
      const why = "this node was declared dead; retry";
      this.host.runner.runSilenced(key, [{ envelope: { message: init }, effects, volatile: false }], why);
      return { created: true, result: unavailable(why) };
    }
    this.table.cells.set(key, cell);
    this.options.events?.created?.(key);
    this.host.runner.applyTimers(cell, pending.changes);
    this.host.runner.runEffects(key, { envelope: { message: init }, effects, volatile: false });
    this.host.runner.kick(cell);
    return { created: true, result: answer ?? { ok: true } };
  }
}
