import { PersistError } from "../../actors/runtime/index.ts";
import {
  Drain,
  type Failover,
  KvActorStore,
  type Membership,
  type Migrations,
  type ClaimView,
  type DrainProgress,
  type NodeIdentity,
} from "../protocol/index.ts";
import { isKvError } from "../kv-error.ts";
import { liveTargets } from "../placement.ts";
import {
  type CounterActor,
  type OpAnswer,
  type QueuedOp,
  abandon,
  counterSnapshot,
  describe,
  newActor,
} from "./sim-counter.ts";
import type { SimNodePorts } from "./sim-node-ports.ts";
import { readClaimsView } from "./sim-claims-view.ts";
import { joinUntilDone } from "./sim-join.ts";
import { wireSimNode } from "./sim-node-wiring.ts";
import { type RegistryDriveHost, driveLeaves } from "./sim-registry-drive.ts";
import type { SimHost } from "./virtual-loop.ts";

/** A drain's deadline: what is left then is taken over by failover after the node leaves. */
const drainDeadlineMs = 6_000;

/**
 * One process of a simulated node, wired like fleet/fleet-node.ts but with a counter actor per
 * key instead of the ActorSystem: the real Membership, KvActorStore and Failover over the world's buckets
 * and clocks. A restart is a new SimNode under the same node id.
 */
export class SimNode {
  readonly identity: NodeIdentity;
  readonly membership: Membership;
  readonly store: KvActorStore;
  private readonly failover: Failover;
  private readonly ports: SimNodePorts;
  private claimsView = new Map<string, ClaimView>();
  private readonly actors = new Map<string, CounterActor>();
  private readonly restoring = new Set<string>();
  /** Ops for keys being restored here (an adoption, a takeover): they wait for the actor. */
  private readonly held = new Map<string, QueuedOp[]>();
  private readonly migrations: Migrations;
  private draining = false;
  private started: Promise<void> | undefined;
  private readonly registryHost: RegistryDriveHost;
  private refreshing = false;

  constructor(ports: SimNodePorts) {
    this.ports = ports;
    // Shared with the store: a fenced node takes a new incarnation in place, as the real node does.
    this.identity = { node: ports.node, incarnation: ports.incarnation };
    this.store = new KvActorStore({
      claims: ports.buckets.claims,
      snapshots: ports.buckets.lobbies,
      identity: this.identity,
      scheduler: ports.scheduler,
    });
    this.registryHost = {
      live: (actor) => !actor.dropped && this.actors.get(actor.key) === actor && !this.ports.host.stopped,
      mayAct: () => this.membership.mayAct(),
      stopped: () => this.ports.host.stopped,
      forward: (key, ops) => {
        this.ports.forward(key, ops);
      },
      receive: (key, op, answer) => {
        this.receive(key, op, answer);
      },
      scheduler: ports.scheduler,
    };
    const wiring = wireSimNode({
      ports,
      identity: this.identity,
      store: this.store,
      load: () => this.actors.size,
      draining: () => this.draining,
      claims: () => this.claimsView.values(),
      learn: (view) => {
        this.claimsView.set(view.key, view);
      },
      isLive: (key) => this.actors.has(key),
      freeze: (key) => this.freeze(key),
      handOver: (key) => {
        this.handOver(key);
      },
      restore: (key) => {
        void this.restore(key);
      },
      afterTick: () => {
        void this.afterTick();
      },
      restartEmpty: () => {
        void this.restartEmpty();
      },
      say: (line) => {
        this.say(line);
      },
    });
    this.membership = wiring.membership;
    this.failover = wiring.failover;
    this.migrations = wiring.migrations;
  }

  /** The simulated process this node runs as. */
  get host(): SimHost {
    return this.ports.host;
  }

  /** Joins (retrying while the store refuses) and starts heartbeating. */
  start(): Promise<void> {
    this.started ??= this.joinAndServe();
    return this.started;
  }

  private async joinAndServe(): Promise<void> {
    await joinUntilDone(() => this.membership.join(), this.ports.scheduler, this.joinFailed);
    this.ports.trace(`${this.ports.node}/${this.identity.incarnation} joined`);
    await this.migrations.serve(this.ports.node);
    this.membership.start();
  }

  /**
   * Drains this node as FleetNode does: marked draining (no adoptions, no creates), every key it owns
   * moved to the least-loaded live peer by the real Drain and Migrations, then a clean leave.
   */
  async drain(): Promise<DrainProgress | null> {
    if (this.draining) return null; // as the admin API: one drain at a time
    this.draining = true;
    // A node drains once it has joined (the admin API starts after the join): a process still joining
    // would leave with no tombstone of its own, and a key it claimed meanwhile under an incarnation no
    // peer ever saw would stay `unknown` to them for good.
    await this.start();
    this.ports.trace(`${this.ports.node}/${this.identity.incarnation} drains`);
    const drain = new Drain({
      identity: this.identity,
      claims: () => this.claimsView.values(),
      targets: () => liveTargets(this.membership.peerViews()),
      move: async (key, revision, target) => {
        const outcome = await this.migrations.move(key, revision, target);
        this.say(`move of ${key} to ${target.node}: ${outcome}`);
        return outcome;
      },
      pinned: () => false,
      scheduler: this.ports.scheduler,
      deadlineMs: drainDeadlineMs,
    });
    const progress = await drain.run();
    this.say(
      `drain ${progress.state}: moved ${progress.moved}, left ${progress.left}, failed ${progress.failed}`,
    );
    await this.membership.leave();
    return progress;
  }

  /** Creates `key` here; true when the create succeeded (the client was told it exists). */
  async create(key: string): Promise<boolean> {
    if (this.draining) return false; // the runtime redirects it to a peer; the client tries elsewhere
    const incarnation = this.identity.incarnation;
    try {
      const { epoch, revision } = await this.store.create(key, (e) =>
        counterSnapshot(this.ports.newWriteId, key, e, []),
      );
      // Fenced meanwhile: the claim names the dropped incarnation, whose keys are taken over.
      if (this.ports.host.stopped || this.identity.incarnation !== incarnation) return false;
      this.actors.set(key, newActor(key, epoch, revision, []));
      return this.membership.mayAct();
    } catch (error) {
      this.say(`create ${key} failed: ${describe(error)}`);
      return false;
    }
  }

  /** A client's op for `key`: applied and acknowledged, or refused (the client retries with the same id). */
  receive(key: string, op: string, answer: (answer: OpAnswer) => void): void {
    const actor = this.actors.get(key);
    if (actor === undefined && this.restoring.has(key) && this.membership.mayAct()) {
      // Being restored here (an adoption): held until the actor is live, as the runtime's mailbox does.
      const held = this.held.get(key) ?? [];
      held.push({ op, answer });
      this.held.set(key, held);
      return;
    }
    if (actor === undefined || !this.membership.mayAct()) {
      // A key of a dead owner asked here is taken over here at once, as the router has a resuming
      // member's keys taken (Failover.want); the client retries meanwhile.
      const claim = this.claimsView.get(key);
      if (actor === undefined && claim !== undefined) this.failover.want(claim);
      answer("refused");
      return;
    }
    actor.queue.push({ op, answer });
    void this.pump(actor);
  }

  /** As ActorSystem.freeze: once the op in flight is written, the actor stops and buffers. */
  private async freeze(key: string): Promise<{ epoch: number; revision: number } | null> {
    const actor = this.actors.get(key);
    if (actor === undefined || actor.dropped || actor.frozen) return null;
    actor.frozen = true;
    if (actor.busy) await new Promise<void>((resolve) => actor.idle.push(resolve));
    if (!this.isCurrent(actor)) return null; // dropped meanwhile (a failed write, a fence)
    this.say(`froze ${key} at epoch ${actor.epoch}`);
    return { epoch: actor.epoch, revision: actor.revision };
  }

  /** Read afresh after an await: still the live actor of its key. */
  private isCurrent(actor: CounterActor): boolean {
    return !actor.dropped && this.actors.get(actor.key) === actor;
  }

  /**
   * As ActorSystem.handOver: the actor is dropped without a write and its buffer goes, once and in order,
   * to whoever the router names now (here again, after a reload, when this node took the key back).
   */
  private handOver(key: string): void {
    const actor = this.actors.get(key);
    if (actor === undefined) return;
    actor.dropped = true;
    this.actors.delete(key);
    const buffered = actor.queue.splice(0);
    const claim = this.claimsView.get(key);
    const mine =
      claim?.owner.node === this.identity.node && claim.owner.incarnation === this.identity.incarnation;
    this.say(`hands ${key} over (${buffered.length} buffered)${mine ? ", kept" : ""}`);
    if (mine) void this.restore(key);
    if (buffered.length > 0) this.ports.forward(key, buffered);
  }

  /** True when this process serves `key` at `epoch` now. */
  serves(key: string, epoch: number): boolean {
    const actor = this.actors.get(key);
    return actor !== undefined && !actor.dropped && actor.epoch === epoch;
  }

  private async pump(actor: CounterActor): Promise<void> {
    if (actor.busy) return;
    actor.busy = true;
    try {
      while (!actor.frozen) {
        const next = actor.queue.shift();
        if (next === undefined) break;
        if (actor.dropped) next.answer("refused");
        else await this.apply(actor, next);
      }
    } finally {
      actor.busy = false;
      for (const resolve of actor.idle.splice(0)) resolve();
    }
  }

  private async apply(actor: CounterActor, { op, answer }: QueuedOp): Promise<void> {
    if (!actor.ops.includes(op)) {
      const ops = [...actor.ops, op];
      try {
        actor.revision = await this.store.write(
          actor.key,
          counterSnapshot(this.ports.newWriteId, actor.key, actor.epoch, ops),
          actor.revision,
        );
        actor.ops = ops;
        this.drive(actor);
      } catch (error) {
        if (!(error instanceof PersistError)) throw error;
        // Fenced: another epoch owns it. Unavailable: the chain's state is unknown here. Either way the
        // actor goes; the owner of its claim restores it from the store.
        this.say(`drops ${actor.key}: ${error.failure}`);
        this.drop(actor);
        answer("refused");
        return;
      }
    }
    if (actor.dropped || !(this.ports.variant === "acks-without-lease" || this.membership.mayAct())) {
      answer("refused");
      return;
    }
    this.ports.acked(actor.key, op, actor.epoch);
    answer("acked");
  }

  private drop(actor: CounterActor): void {
    if (this.actors.get(actor.key) === actor) this.actors.delete(actor.key);
    abandon(actor);
  }

  /** A registry key's move intents are driven (unless this variant never leaves). */
  private drive(actor: CounterActor): void {
    if (this.ports.variant !== "registry-never-leaves") driveLeaves(actor, this.registryHost);
  }

  /** Reads the claims (as the router's watch would keep them), takes over dead owners' keys, restores ours. */
  private async afterTick(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      this.claimsView = await readClaimsView(this.ports.buckets.claims);
    } catch (error) {
      if (!isKvError(error)) throw error;
      return; // the last view stands
    } finally {
      this.refreshing = false;
    }
    this.failover.sweep();
    for (const claim of this.claimsView.values()) {
      const mine =
        claim.owner.node === this.identity.node && claim.owner.incarnation === this.identity.incarnation;
      if (mine && !this.actors.has(claim.key)) void this.restore(claim.key);
    }
  }

  private async restore(key: string): Promise<void> {
    if (this.restoring.has(key)) return;
    this.restoring.add(key);
    try {
      const stored = await this.store.read(key);
      if (stored === null || !stored.owner.mine || this.ports.host.stopped) return;
      const live = this.actors.get(key);
      if (live !== undefined && live.epoch >= stored.epoch) return;
      if (live !== undefined) this.drop(live);
      const ops = stored.snapshot.state;
      if (!Array.isArray(ops)) throw new TypeError(`${key}: not a counter snapshot`);
      const actor = newActor(key, stored.epoch, stored.revision, ops.map(String));
      this.actors.set(key, actor);
      this.say(`restored ${key} at epoch ${stored.epoch} (${ops.length} ops)`);
      this.drive(actor);
    } catch (error) {
      if (!(error instanceof PersistError)) throw error;
      this.say(`restore of ${key} failed: ${error.failure}`);
    } finally {
      this.restoring.delete(key);
      const held = this.held.get(key) ?? [];
      this.held.delete(key);
      const actor = this.actors.get(key);
      if (actor !== undefined && held.length > 0) {
        actor.queue.push(...held);
        void this.pump(actor);
      } else for (const queued of held) queued.answer("refused");
    }
  }

  /** A line of the world's trace about this node. */
  private say(line: string): void {
    this.ports.trace(`${this.ports.node} ${line}`);
  }

  private readonly joinFailed = (error: unknown): void => {
    this.say(`join failed: ${describe(error)}`);
  };

  /** Declared dead: drop every actor at once and come back as a new incarnation (as FleetNode does). */
  private async restartEmpty(): Promise<void> {
    for (const actor of [...this.actors.values()]) this.drop(actor);
    this.claimsView = new Map();
    this.identity.incarnation = this.ports.newIncarnation();
    this.say(`fenced; rejoins as ${this.identity.incarnation}`);
    await joinUntilDone(
      () => this.membership.rejoin(this.identity.incarnation),
      this.ports.scheduler,
      this.joinFailed,
    );
  }
}
