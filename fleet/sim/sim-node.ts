import { PersistError, type Scheduler, type Snapshot } from "../../actors/runtime/index.ts";
import { KvActorStore } from "../actor-store.ts";
import { type NodeIdentity, decodeClaim } from "../claim.ts";
import { Failover, type ClaimView } from "../failover.ts";
import type { KvBucket } from "../kv.ts";
import { isKvError } from "../kv-error.ts";
import { Membership } from "../membership.ts";
import type { SimHost } from "./virtual-loop.ts";

/**
 * How a node behaves. `correct` follows FLEET-PROTOCOL; the others are deliberately broken, to prove the
 * checks catch what they break.
 */
export type NodeVariant =
  | "correct"
  /** Acknowledges a write that succeeded without asking whether its lease still holds. */
  | "acks-without-lease";

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

interface QueuedOp {
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
        draining: false,
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
      liveNodes: () => this.membership.liveNodes(),
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
  }

  /** The simulated process this node runs as. */
  get host(): SimHost {
    return this.ports.host;
  }

  /** Joins (retrying while the store refuses) and starts heartbeating. */
  async start(): Promise<void> {
    await this.joinUntilDone(() => this.membership.join());
    this.ports.trace(`${this.ports.node}/${this.identity.incarnation} joined`);
    this.membership.start();
  }

  /** Creates `key` here; true when the create succeeded (the client was told it exists). */
  async create(key: string): Promise<boolean> {
    const incarnation = this.identity.incarnation;
    try {
      const { epoch, revision } = await this.store.create(key, (e) => this.snapshot(key, e, []));
      // Fenced meanwhile: the claim names the dropped incarnation, whose keys are taken over.
      if (this.ports.host.stopped || this.identity.incarnation !== incarnation) return false;
      this.actors.set(key, { key, epoch, revision, ops: [], queue: [], busy: false, dropped: false });
      return this.membership.mayAct();
    } catch (error) {
      this.ports.trace(`${this.ports.node} create ${key} failed: ${describe(error)}`);
      return false;
    }
  }

  /** A client's op for `key`: applied and acknowledged, or refused (the client retries with the same id). */
  receive(key: string, op: string, answer: (answer: OpAnswer) => void): void {
    const actor = this.actors.get(key);
    if (actor === undefined || !this.membership.mayAct()) {
      answer("refused");
      return;
    }
    actor.queue.push({ op, answer });
    void this.pump(actor);
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
      for (let next = actor.queue.shift(); next !== undefined; next = actor.queue.shift()) {
        if (actor.dropped) next.answer("refused");
        else await this.apply(actor, next);
      }
    } finally {
      actor.busy = false;
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
      this.actors.set(key, {
        key,
        epoch: stored.epoch,
        revision: stored.revision,
        ops: ops.map(String),
        queue: [],
        busy: false,
        dropped: false,
      });
      this.ports.trace(`${this.ports.node} restored ${key} at epoch ${stored.epoch} (${ops.length} ops)`);
    } catch (error) {
      if (!(error instanceof PersistError)) throw error;
      this.ports.trace(`${this.ports.node} restore of ${key} failed: ${error.failure}`);
    } finally {
      this.restoring.delete(key);
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
