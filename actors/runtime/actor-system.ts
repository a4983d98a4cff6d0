import type { ActorCell } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import { actorContext } from "./actor-context.ts";
import { ActorCreator, type Spawned } from "./actor-creator.ts";
import { ActorHandOver } from "./actor-hand-over.ts";
import { ActorLoader } from "./actor-loader.ts";
import { ActorTable, type Endpoint } from "./actor-table.ts";
import { MailboxRunner } from "./mailbox-runner.ts";
import { MessageDelivery } from "./message-delivery.ts";
import { Passivation } from "./passivation.ts";
import {
  defaultResultRetentionMs,
  defaultResultSessions,
  maxResultsPerSession,
  type ResultBounds,
} from "./request-results.ts";
import { RestoredSpawns } from "./restored-spawns.ts";
import { SnapshotMaker } from "./snapshot-maker.ts";
import type { ActorContext, ActorKind, AskResult, RequestId } from "./types.ts";

export type { ActorSystemOptions, RuntimeEvents } from "./actor-system-options.ts";
export type { Endpoint } from "./actor-table.ts";

/**
 * The actor runtime: one mailbox per key, messages handled one at a time, the new state persisted before
 * any effect is carried out (persist before acknowledging), supervision, timers as absolute deadlines,
 * request-id deduplication kept in the snapshot, and passivation of idle actors.
 *
 * The work is shared among collaborators over one ActorTable: MessageDelivery routes, ActorLoader
 * restores, ActorCreator spawns, RestoredSpawns settles a restored snapshot's spawns, ActorHandOver
 * freezes and hands over, Passivation drops, and MailboxRunner runs the mailboxes.
 */
export class ActorSystem {
  private readonly table = new ActorTable();
  private readonly runner: MailboxRunner;
  private readonly delivery: MessageDelivery;
  private readonly loader: ActorLoader;
  private readonly creator: ActorCreator;
  private readonly handOvers: ActorHandOver;
  private readonly passivation: Passivation;

  constructor(private readonly options: ActorSystemOptions) {
    const resultBounds: ResultBounds = {
      retentionMs: options.resultRetentionMs ?? defaultResultRetentionMs,
      maxSessions: options.resultSessions ?? defaultResultSessions,
      perSession: maxResultsPerSession,
    };
    const snapshots = new SnapshotMaker(options.random);
    const table = this.table;
    const context = (key: string, now: number): ActorContext =>
      actorContext(options.node, options.random, key, now);
    this.runner = new MailboxRunner(options, {
      deliver: (key, envelope) => {
        this.delivery.deliver(key, envelope);
      },
      spawnFromEffect: (spawn, from) => this.creator.spawnFromEffect(spawn, from),
      forget: (cell) => {
        this.handOvers.forget(cell);
      },
      context,
      snapshotOf: (cell, state, timers, epoch, now) => snapshots.snapshotOf(cell, state, timers, epoch, now),
      newWriteId: (now) => snapshots.newWriteId(now),
      isClosed: () => table.closed,
    });
    const runner = this.runner;
    const deliver: MessageDelivery["deliver"] = (key, envelope, here) => {
      this.delivery.deliver(key, envelope, here);
    };
    this.creator = new ActorCreator(table, options, { runner, snapshots, resultBounds, deliver, context });
    const spawns = new RestoredSpawns(table, options, {
      spawnChild: (key, init, node) => this.creator.spawnChild(key, init, node),
      deliver,
      newWriteId: (now) => snapshots.newWriteId(now),
    });
    this.loader = new ActorLoader(table, options, {
      resultBounds,
      create: (key, init, request) => this.creator.create(key, init, request),
      settleSpawns: (key, stored) => spawns.settleSpawns(key, stored),
      arm: (cell, name, kind, at) => {
        runner.arm(cell, name, kind, at);
      },
    });
    const kick = (cell: ActorCell): void => {
      runner.kick(cell);
    };
    this.delivery = new MessageDelivery(table, options, { kick, load: (key) => this.loader.load(key) });
    this.handOvers = new ActorHandOver(table, { kick, deliver });
    this.passivation = new Passivation(table, options);
    this.passivation.scheduleSweep();
  }

  /** Makes a kind addressable under `<kind.kind>/…`. */
  register<S, M>(kind: ActorKind<S, M>, opts: { createOnDemand?: boolean } = {}): this {
    this.table.kinds.set(kind.kind, {
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
    this.table.endpoints.set(prefix, endpoint);
    return this;
  }

  /**
   * Offers every tell to exactly `key` to `tap` first, on this node: a tap that returns true took the
   * message, and no actor (here or on the key's owner) sees it. The node keeps the lobby list this way
   * (public lobbies' listings go to the fleet's listings bucket, not to one actor).
   */
  tapTells(key: string, tap: (message: unknown) => boolean): this {
    this.table.taps.set(key, tap);
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
      this.delivery.deliver(
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
    this.delivery.deliver(key, { message }, opts.here ?? false);
  }

  /**
   * Creates the actor `key` with `init`. Resolves `{ created: false }` when the key is already claimed
   * (the caller draws another code), else the creation's answer (reply / reject effects of `create`).
   */
  spawn(key: string, init: unknown, opts: { request?: RequestId } = {}): Promise<Spawned> {
    return this.creator.spawn(key, init, opts);
  }

  /** True when the actor is in memory. */
  isLive(key: string): boolean {
    return this.table.cells.has(key);
  }

  /** True while the actor is on its way into memory: its key is located or loaded, messages wait for it. */
  isArriving(key: string): boolean {
    return this.table.waiting.has(key) || this.table.loading.has(key);
  }

  /** The in-memory state of a live actor (for the harness and the admin view); undefined when passivated. */
  peek(key: string): unknown {
    return this.table.cells.get(key)?.state;
  }

  /** Number of actors in memory. */
  get liveCount(): number {
    return this.table.cells.size;
  }

  /** Drops every idle actor now (their snapshots stay), optionally only keys under `prefix`; returns how many. */
  passivateIdle(olderThanMs = 0, prefix = ""): number {
    return this.passivation.passivateIdle(olderThanMs, prefix);
  }

  /**
   * Freezes a live actor for a migration (FLEET-PROTOCOL, "Migration" 1–2): once the batch in flight is
   * written, its mailbox stops running and keeps every later message in order — asks past
   * `maxBuffered` are refused UNAVAILABLE (retried by clients), never dropped silently. Resolves with the
   * epoch and revision of its last written snapshot, or null when the key is not live here, pinned to
   * this node (see ActorKind.pinned), or holds changes not yet written.
   */
  freeze(key: string, maxBuffered = 256): Promise<{ epoch: number; revision: number } | null> {
    return this.handOvers.freeze(key, maxBuffered);
  }

  /** Ends a freeze: the actor runs its buffered messages here (a migration that did not happen). */
  thaw(key: string): void {
    this.handOvers.thaw(key);
  }

  /**
   * Lets go of a frozen actor whose key another node has adopted (the router already names it): the cell
   * is dropped without a write, and its buffered messages are delivered again, in order — to the new
   * owner through the router, or here after a reload if this node took the key back.
   */
  handOver(key: string): void {
    this.handOvers.handOver(key);
  }

  /** True when the live actor `key` must stay on this node for now (see ActorKind.pinned). */
  pinned(key: string): boolean {
    return this.handOvers.pinned(key);
  }

  /**
   * Drops every actor at once, writing nothing: this node was declared dead and other nodes own its keys
   * now. Pending asks are answered UNAVAILABLE (clients retry them elsewhere); the system keeps running
   * for the node's next incarnation. Returns how many actors were dropped.
   */
  dropAll(): number {
    return this.passivation.dropAll();
  }

  /** Stops timers and the sweep; pending asks are answered UNAVAILABLE. */
  close(): void {
    this.passivation.close();
  }
}
