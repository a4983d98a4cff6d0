import type { Scheduler } from "../../actors/runtime/index.ts";
import { type NodeIdentity, sameIdentity } from "./claim.ts";
import type { ClaimView } from "./failover.ts";
import type { MoveOutcome } from "./migration.ts";

/** A node a drain may move keys to. */
export interface DrainTarget {
  readonly node: string;
  readonly url: string;
  /** Its load as its last heartbeat said (live actors). */
  readonly load: number;
}

/** Where a drain stands: what `foyer drain` shows and `/status` reports. */
export interface DrainProgress {
  readonly state: "running" | "done" | "deadline";
  /** Keys this node owned when the drain started, and claimed since. */
  readonly total: number;
  readonly moved: number;
  /** Keys still here. */
  readonly left: number;
  /** Of those, held by a running room (they move once it ends). */
  readonly waitingForRoom: number;
  /** Moves that did not happen (tried again until the deadline). */
  readonly failed: number;
  readonly startedAt: number;
  readonly finishedAt: number | null;
}

export interface DrainOptions {
  /** This process (read at each use). */
  readonly identity: NodeIdentity;
  /** Every claim the node knows of: the router's cache. */
  readonly claims: () => Iterable<ClaimView>;
  /** Live peers that take keys, with their load. */
  readonly targets: () => readonly DrainTarget[];
  readonly move: (key: string, claimRevision: number, target: DrainTarget) => Promise<MoveOutcome>;
  /** True when the live actor `key` is pinned here (its room runs). */
  readonly pinned: (key: string) => boolean;
  readonly scheduler: Scheduler;
  /** Past this, the drain stops: what is left is handed over by the failover path when the node exits. */
  readonly deadlineMs: number;
  /** Moves in flight at once. Default 32; a node passes `--drain-concurrency` (48). */
  readonly concurrency?: number;
  /** How long a key that could not move now waits before it is tried again. Default 250 ms. */
  readonly retryMs?: number;
}

/**
 * Moves every key this node owns to its peers, many at once, each to the least-loaded live peer that is
 * not draining (counting what this drain already sent it), until nothing is left or the deadline passes.
 * Keys pinned by a running room wait for it to end. The caller marks the node draining first, so nothing
 * new lands here meanwhile (new lobbies are placed on peers).
 */
export class Drain {
  private readonly options: DrainOptions;
  private readonly inFlight = new Set<string>();
  /** A key that could not move now, and when it may be tried again. */
  private readonly notBefore = new Map<string, number>();
  private readonly sent = new Map<string, number>();
  private readonly seen = new Set<string>();
  private movedCount = 0;
  private failedCount = 0;
  private waiting = 0;
  private left = 0;
  private state: DrainProgress["state"] = "running";
  private readonly startedAt: number;
  private finishedAt: number | null = null;

  constructor(options: DrainOptions) {
    this.options = options;
    this.startedAt = options.scheduler.now();
  }

  progress(): DrainProgress {
    return {
      state: this.state,
      total: this.seen.size,
      moved: this.movedCount,
      left: this.left,
      waitingForRoom: this.waiting,
      failed: this.failedCount,
      startedAt: this.startedAt,
      finishedAt: this.finishedAt,
    };
  }

  /** Runs the drain to its end: nothing left here, or the deadline. */
  async run(): Promise<DrainProgress> {
    const { scheduler, deadlineMs } = this.options;
    const concurrency = this.options.concurrency ?? 32;
    const running = new Set<Promise<void>>();
    let end: DrainProgress["state"];
    for (;;) {
      const now = scheduler.now();
      const mine = this.ownKeys();
      this.left = mine.length;
      this.waiting = mine.filter((claim) => this.options.pinned(claim.key)).length;
      if (mine.length === 0) {
        end = "done";
        break;
      }
      if (now - this.startedAt >= deadlineMs) {
        end = "deadline";
        break;
      }
      // One pass over this scan starts every key that may move now, `concurrency` at a time; the claims
      // are scanned again only after it. A scan walks every claim the node knows of (the whole fleet's):
      // scanning once per finished move made a drain of 20,000 keys quadratic, and starved the node's
      // heartbeat until its peers declared it dead.
      // In the order the claims come (players' records and lobbies mixed): moving every lobby first sent
      // all their members reconnecting at once, and that storm paused each probe's requests for seconds
      // (docs/results.md, "Drain").
      const ready = mine.filter(
        (claim) =>
          !this.inFlight.has(claim.key) &&
          (this.notBefore.get(claim.key) ?? 0) <= now &&
          !this.options.pinned(claim.key),
      );
      let started = 0;
      for (const claim of ready) {
        while (running.size >= concurrency) await Promise.race(running);
        if (scheduler.now() - this.startedAt >= deadlineMs) break;
        const target = this.pickTarget();
        if (target === undefined) break;
        const move = this.moveOne(claim, target).finally(() => running.delete(move));
        running.add(move);
        started++;
      }
      if (started > 0) continue;
      if (running.size > 0) await Promise.race(running);
      else await this.sleep(this.options.retryMs ?? 250);
    }
    // A move whose claim already changed hands may still be finishing: the drain ends with the last one,
    // and only then says so (a reader of `progress()` sees `done` with its `finishedAt`).
    await Promise.all(running);
    this.state = end;
    this.finishedAt = scheduler.now();
    return this.progress();
  }

  private ownKeys(): ClaimView[] {
    const mine: ClaimView[] = [];
    for (const claim of this.options.claims()) {
      if (!sameIdentity(claim.owner, this.options.identity)) continue;
      mine.push(claim);
      this.seen.add(claim.key);
    }
    return mine;
  }

  /** The live peer with the least load, counting what this drain has sent it. */
  private pickTarget(): DrainTarget | undefined {
    let best: DrainTarget | undefined;
    let bestLoad = Infinity;
    for (const target of this.options.targets()) {
      const load = target.load + (this.sent.get(target.node) ?? 0);
      if (load < bestLoad) {
        best = target;
        bestLoad = load;
      }
    }
    return best;
  }

  private async moveOne(claim: ClaimView, target: DrainTarget): Promise<void> {
    this.inFlight.add(claim.key);
    this.sent.set(target.node, (this.sent.get(target.node) ?? 0) + 1);
    let outcome: MoveOutcome;
    try {
      outcome = await this.options.move(claim.key, claim.revision, target);
    } catch {
      outcome = "kept";
    } finally {
      this.inFlight.delete(claim.key);
    }
    if (outcome === "moved") {
      this.movedCount++;
      this.left = Math.max(0, this.left - 1); // until the next scan counts again
      return;
    }
    this.sent.set(target.node, (this.sent.get(target.node) ?? 1) - 1);
    if (outcome === "kept") this.failedCount++;
    this.notBefore.set(claim.key, this.options.scheduler.now() + (this.options.retryMs ?? 250));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.options.scheduler.at(this.options.scheduler.now() + ms, resolve);
    });
  }
}
