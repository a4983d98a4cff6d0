import { PersistError, type Scheduler, type Snapshot } from "../../actors/runtime/index.ts";
import { KvActorStore } from "../protocol/index.ts";
import type { Bus } from "../bus.ts";
import { Drain, type DrainProgress, type DrainTarget } from "../protocol/index.ts";
import { Migrations } from "../protocol/index.ts";
import { type NodeIdentity, decodeClaim } from "../protocol/index.ts";
import { Failover, type ClaimView } from "../protocol/index.ts";
import type { KvBucket } from "../kv.ts";
import { isKvError } from "../kv-error.ts";
import { Membership } from "../protocol/index.ts";
import type { SimHost } from "./virtual-loop.ts";

/**
 * How a node behaves. `correct` follows FLEET-PROTOCOL; the others are deliberately broken, to prove the
 * checks catch what they break.
 */
export type NodeVariant =
  | "correct"
  /** Acknowledges a write that succeeded without asking whether its lease still holds. */
  | "acks-without-lease"
  /** A registry that records a move but never drives the leave of the old lobby. */
  | "registry-never-leaves";

/** The snapshot kind of the simulation's actor: its state is the list of applied op ids. */
export const counterKind = "sim-counter";

/** What a node needs from the world it runs in. */
export interface SimNodePorts {
  readonly node: string;
  readonly incarnation: string;
  readonly host: SimHost;
  readonly scheduler: Scheduler;
  readonly monotonic: () => number;
  readonly buckets: { readonly nodes: KvBucket; readonly claims: KvBucket; readonly lobbies: KvBucket };
  /** This process's connection to the simulated bus (adoptions). */
  readonly bus: Bus;
  /**
   * Sends ops for `key` to the process the router names now, in order, in one delivery: a handed-over
   * buffer, or a registry's `leave` to a lobby. Each op's answer comes back to its own callback.
   */
  readonly forward: (key: string, ops: readonly QueuedOp[]) => void;
  readonly variant: NodeVariant;
  /** A fresh incarnation id, for rejoining after being declared dead. */
  readonly newIncarnation: () => string;
  /** A unique write id. */
  readonly newWriteId: () => string;
  /** The node acknowledged `op` of `key` at `epoch`. */
  readonly acked: (key: string, op: string, epoch: number) => void;
  readonly trace: (line: string) => void;
}

/** How an op sent to a node ended, as the client hears it. */
export type OpAnswer = "acked" | "refused";

export interface QueuedOp {
  readonly op: string;
  readonly answer: (answer: OpAnswer) => void;
}

/** The tiny actor of a key: the op ids it applied, and where its chain stands. */
interface CounterActor {
  readonly key: string;
  readonly epoch: number;
  revision: number;
  ops: readonly string[];
  readonly queue: QueuedOp[];
  busy: boolean;
  dropped: boolean;
  /** Frozen for a migration: ops wait in `queue` until the hand-over sends them on. */
  frozen: boolean;
  /** Waiting for the op in flight to finish (a freeze). */
  readonly idle: (() => void)[];
  /** A registry key's intent driver is armed. */
  driving: boolean;
}

/** How long an adoption request may go unanswered. */
const adoptTimeoutMs = 1_500;
/** How often a registry drives an unconfirmed leave. */
const leaveRetryMs = 400;
/** A drain's deadline: what is left then is taken over by failover after the node leaves. */
const drainDeadlineMs = 6_000;

/** The op a registry key's state holds while its player moves away from `lobby` (the intent). */
export function moveOp(lobby: string): string {
  return `move:${lobby}`;
}

/** The op a registry key's state holds once `lobby` confirmed the player left. */
export function leftOp(lobby: string): string {
  return `left:${lobby}`;
}

/** The ops a lobby's state holds for a member joining and leaving. */
export function joinOp(player: string): string {
  return `join:${player}`;
}
export function leaveOp(player: string): string {
  return `leave:${player}`;
}

/** The lobbies a registry's ops still have to leave: moves not confirmed `left`. */
export function pendingLeaves(ops: readonly string[]): string[] {
  return ops
    .filter((op) => op.startsWith("move:"))
    .map((op) => op.slice("move:".length))
    .filter((lobby) => !ops.includes(leftOp(lobby)));
}

function newActor(key: string, epoch: number, revision: number, ops: readonly string[]): CounterActor {
  return {
    key,
    epoch,
    revision,
    ops,
    queue: [],
    busy: false,
    dropped: false,
    frozen: false,
    idle: [],
    driving: false,
  };
}

/**
 * One process of a simulated node, wired like ops/node/fleet-runtime.ts but with a counter actor per
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
    this.membership = new Membership({
      nodes: ports.buckets.nodes,
      node: ports.node,
      incarnation: ports.incarnation,
      scheduler: ports.scheduler,
      monotonic: ports.monotonic,
      facts: () => ({
        url: "",
        region: "sim",
        load: this.actors.size,
        draining: this.draining,
        version: "sim",
        protocol: 1,
      }),
      events: {
        peerDead: (peer) => {
          this.ports.trace(`${this.ports.node} sees ${peer.node}/${peer.incarnation} dead`);
          this.failover.sweep();
        },
        ticked: () => {
          void this.afterTick();
        },
        fenced: () => {
          void this.restartEmpty();
        },
      },
    });
    this.failover = new Failover({
      node: ports.node,
      claims: () => this.claimsView.values(),
      ownerState: (owner) => this.membership.ownerState(owner),
      liveNodes: () => this.membership.claimantNodes(),
      takeOver: async (key, revision) => {
        const result = await this.store.takeOver(key, revision);
        this.ports.trace(
          `${this.ports.node} takeover of ${key} from revision ${revision}: ${result.outcome}`,
        );
        return result;
      },
      taken: (key, epoch) => {
        this.ports.trace(`${this.ports.node} took ${key} at epoch ${epoch}`);
        void this.restore(key);
      },
      failed: (key, error) => {
        this.ports.trace(`${this.ports.node} takeover of ${key} failed: ${describe(error)}`);
      },
      scheduler: ports.scheduler,
      fallbackAfterMs: 3_000,
    });
    this.migrations = new Migrations(
      {
        identity: this.identity,
        bus: ports.bus,
        freeze: (key) => this.freeze(key),
        isLive: (key) => this.actors.has(key),
        handOver: (key) => {
          this.handOver(key);
        },
        takeOver: (key, revision) => this.store.takeOver(key, revision),
        readClaim: (key) => this.store.readClaim(key),
        learn: (key, owner, revision) => {
          this.claimsView.set(key, { key, owner: { ...owner }, revision });
        },
        adopted: (key) => {
          this.ports.trace(`${this.ports.node} adopted ${key}`);
          void this.restore(key);
        },
        moved: () => undefined,
        mayAdopt: () => this.membership.mayAct() && !this.draining && !this.ports.host.stopped,
      },
      adoptTimeoutMs,
      ports.scheduler,
    );
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
    await this.joinUntilDone(() => this.membership.join());
    this.ports.trace(`${this.ports.node}/${this.identity.incarnation} joined`);
    await this.migrations.serve(this.ports.node);
    this.membership.start();
  }

  /**
   * Drains this node as fleet-runtime does: marked draining (no adoptions, no creates), every key it owns
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
      targets: () => this.drainTargets(),
      move: async (key, revision, target) => {
        const outcome = await this.migrations.move(key, revision, target);
        this.ports.trace(`${this.ports.node} move of ${key} to ${target.node}: ${outcome}`);
        return outcome;
      },
      pinned: () => false,
      scheduler: this.ports.scheduler,
      deadlineMs: drainDeadlineMs,
    });
    const progress = await drain.run();
    this.ports.trace(
      `${this.ports.node} drain ${progress.state}: moved ${progress.moved}, left ${progress.left}, failed ${progress.failed}`,
    );
    await this.membership.leave();
    return progress;
  }

  private drainTargets(): DrainTarget[] {
    return this.membership.peerViews().flatMap((peer) => {
      const beat = peer.heartbeat;
      if (peer.state !== "live" || beat === null || beat.draining) return [];
      return [{ node: peer.node, url: `sim://${peer.node}`, load: beat.load }];
    });
  }

  /** Creates `key` here; true when the create succeeded (the client was told it exists). */
  async create(key: string): Promise<boolean> {
    if (this.draining) return false; // the runtime redirects it to a peer; the client tries elsewhere
    const incarnation = this.identity.incarnation;
    try {
      const { epoch, revision } = await this.store.create(key, (e) => this.snapshot(key, e, []));
      // Fenced meanwhile: the claim names the dropped incarnation, whose keys are taken over.
      if (this.ports.host.stopped || this.identity.incarnation !== incarnation) return false;
      this.actors.set(key, newActor(key, epoch, revision, []));
      return this.membership.mayAct();
    } catch (error) {
      this.ports.trace(`${this.ports.node} create ${key} failed: ${describe(error)}`);
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
    this.ports.trace(`${this.ports.node} froze ${key} at epoch ${actor.epoch}`);
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
    this.ports.trace(
      `${this.ports.node} hands ${key} over (${buffered.length} buffered)${mine ? ", kept" : ""}`,
    );
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
          this.snapshot(actor.key, actor.epoch, ops),
          actor.revision,
        );
        actor.ops = ops;
        this.drive(actor);
      } catch (error) {
        if (!(error instanceof PersistError)) throw error;
        // Fenced: another epoch owns it. Unavailable: the chain's state is unknown here. Either way the
        // actor goes; the owner of its claim restores it from the store.
        this.ports.trace(`${this.ports.node} drops ${actor.key}: ${error.failure}`);
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
    actor.dropped = true;
    if (this.actors.get(actor.key) === actor) this.actors.delete(actor.key);
    for (const queued of actor.queue.splice(0)) queued.answer("refused");
    for (const resolve of actor.idle.splice(0)) resolve();
  }

  /**
   * The player registry's move intent (actors/player/player-machine.ts): while a registry key's state
   * holds a move not confirmed `left`, its live owner tells the old lobby `leave` on a timer until the
   * lobby acknowledges, then records `left`. Driven again by whoever restores the key.
   */
  private drive(actor: CounterActor): void {
    if (!actor.key.startsWith("player/") || actor.driving) return;
    if (this.ports.variant === "registry-never-leaves") return;
    if (pendingLeaves(actor.ops).length === 0) return;
    actor.driving = true;
    const player = actor.key.slice("player/".length);
    const tick = (): void => {
      if (actor.dropped || this.actors.get(actor.key) !== actor || this.ports.host.stopped) return;
      const pending = pendingLeaves(actor.ops);
      if (pending.length === 0) {
        actor.driving = false;
        return;
      }
      if (this.membership.mayAct() && !actor.frozen) {
        for (const lobby of pending) {
          this.ports.forward(lobby, [
            {
              op: leaveOp(player),
              answer: (answer) => {
                if (answer !== "acked" || this.ports.host.stopped) return;
                this.receive(actor.key, leftOp(lobby), () => undefined);
              },
            },
          ]);
        }
      }
      this.ports.scheduler.at(this.ports.scheduler.now() + leaveRetryMs, tick);
    };
    tick();
  }

  /** Reads the claims (as the router's watch would keep them), takes over dead owners' keys, restores ours. */
  private async afterTick(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      const claims = this.ports.buckets.claims;
      const keys = await claims.keys();
      const entries = await Promise.all(keys.map((k) => claims.get(k)));
      const view = new Map<string, ClaimView>();
      for (const entry of entries) {
        if (entry === null) continue;
        view.set(entry.key, { key: entry.key, owner: decodeClaim(entry.value), revision: entry.revision });
      }
      this.claimsView = view;
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
      this.ports.trace(`${this.ports.node} restored ${key} at epoch ${stored.epoch} (${ops.length} ops)`);
      this.drive(actor);
    } catch (error) {
      if (!(error instanceof PersistError)) throw error;
      this.ports.trace(`${this.ports.node} restore of ${key} failed: ${error.failure}`);
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

  /** Declared dead: drop every actor at once and come back as a new incarnation (as fleet-runtime does). */
  private async restartEmpty(): Promise<void> {
    for (const actor of [...this.actors.values()]) this.drop(actor);
    this.claimsView = new Map();
    this.identity.incarnation = this.ports.newIncarnation();
    this.ports.trace(`${this.ports.node} fenced; rejoins as ${this.identity.incarnation}`);
    await this.joinUntilDone(() => this.membership.rejoin(this.identity.incarnation));
  }

  private async joinUntilDone(join: () => Promise<void>): Promise<void> {
    for (let delay = 200; ; delay = Math.min(delay * 2, 2_000)) {
      try {
        await join();
        return;
      } catch (error) {
        this.ports.trace(`${this.ports.node} join failed: ${describe(error)}`);
        await new Promise<void>((resolve) => {
          this.ports.scheduler.at(this.ports.scheduler.now() + delay, resolve);
        });
      }
    }
  }

  private snapshot(key: string, epoch: number, ops: readonly string[]): Snapshot {
    return {
      format: 1,
      kind: counterKind,
      schemaVersion: 1,
      key,
      epoch,
      seq: ops.length,
      writeId: this.ports.newWriteId(),
      state: ops,
      timers: [],
      results: [],
    };
  }
}

function describe(error: unknown): string {
  if (error instanceof PersistError) return error.failure;
  if (isKvError(error)) return error.code;
  return error instanceof Error ? error.name : String(error);
}
