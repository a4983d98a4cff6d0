import type { Scheduler } from "../../actors/runtime/index.ts";
import type { TakeOver } from "./actor-store.ts";
import type { NodeIdentity } from "./claim.ts";
import type { OwnerState } from "./peer-table.ts";
import { rendezvousOwner } from "./rendezvous.ts";

/**
 * Takeovers a node may run beyond its limit for keys a caller waits for (`want`). Many: each waits on a
 * few KV round trips that NATS pipelines, and a member waits on each; the bound only caps what is held.
 */
const urgentExtra = 512;

/** A claim as the node last saw it. */
export interface ClaimView {
  readonly key: string;
  readonly owner: NodeIdentity;
  /** The claim's revision: a takeover CAS-es from it. */
  readonly revision: number;
}

/** What the failover driver needs from the rest of the node. */
export interface FailoverOptions {
  readonly node: string;
  /** The claims the node knows of: its router's, and the keys the claim index lists for dead nodes. */
  readonly claims: () => Iterable<ClaimView>;
  /** Membership's view of an owner. */
  readonly ownerState: (owner: NodeIdentity) => OwnerState;
  /** The claimants: live node ids, this one included unless it drains (Membership.claimantNodes). */
  readonly liveNodes: () => readonly string[];
  /** The store's takeover of `key` from the dead `owner`: claim CAS, then seal (or free an orphan). */
  readonly takeOver: (key: string, claimRevision: number, owner: NodeIdentity) => Promise<TakeOver>;
  /** A key was taken and sealed here: restore it and tell its actor. */
  readonly taken: (key: string, epoch: number) => void;
  /** A takeover failed for a reason other than losing the race (it is tried again next sweep). */
  readonly failed?: (key: string, error: unknown) => void;
  readonly scheduler: Scheduler;
  /** A key whose claimant has not taken it after this long is taken by anyone (CAS keeps it safe). */
  readonly fallbackAfterMs: number;
  /** Takeovers in flight at once. Default 128 (each waits on a few KV round trips, not on this node). */
  readonly concurrency?: number;
  /**
   * How long the sweep leaves a dead owner's key to be wanted (`want`) before it takes it itself.
   * Members resuming on survivors ask for their lobbies within moments of the death: each is then taken
   * where its member is, without racing the sweep of another survivor (whose win would send the member
   * on with a redirect). Default 1,000 ms.
   */
  readonly sweepAfterMs?: number;
}

/**
 * Takes over the keys of dead nodes (FLEET-PROTOCOL, "Heartbeats and node death"): on every sweep, each
 * key whose claim names a dead incarnation goes to one claimant chosen by rendezvous hashing over the
 * live nodes, so survivors do not stampede; a key still not taken after `fallbackAfterMs` (its claimant
 * died too, or sees another view) is taken by whoever sweeps, compare-and-set being the safety net.
 */
export class Failover {
  private readonly options: FailoverOptions;
  private readonly inFlight = new Set<string>();
  private readonly queued: ClaimView[] = [];
  /**
   * Keys a caller is waiting for (see `want`), started before the queue and past its limit: lobbies
   * first (a member whose record was just taken wants its lobby next), then players' records.
   */
  private readonly urgent: [ClaimView[], ClaimView[]] = [[], []];
  /** When this node first saw each orphaned key (wall ms), for the fallback. */
  private readonly firstSeen = new Map<string, number>();
  private running = 0;
  /** The sweep that takes keys held back for `sweepAfterMs`, when one is set. */
  private laterSweep: (() => void) | undefined;

  constructor(options: FailoverOptions) {
    this.options = options;
  }

  /** Looks for keys of dead owners and starts the takeovers that fall to this node. */
  sweep(): void {
    const now = this.options.scheduler.now();
    const live = this.options.liveNodes();
    const seen = new Set<string>();
    const holdMs = this.options.sweepAfterMs ?? 1_000;
    let heldUntil = Infinity;
    for (const claim of this.options.claims()) {
      if (this.options.ownerState(claim.owner) !== "dead") continue;
      seen.add(claim.key);
      if (this.inFlight.has(claim.key)) continue;
      const first = this.firstSeen.get(claim.key) ?? now;
      this.firstSeen.set(claim.key, first);
      if (now - first < holdMs) {
        heldUntil = Math.min(heldUntil, first + holdMs);
        continue;
      }
      const claimant = rendezvousOwner(claim.key, live);
      if (claimant === this.options.node || now - first >= this.options.fallbackAfterMs) this.enqueue(claim);
    }
    for (const key of this.firstSeen.keys()) if (!seen.has(key)) this.firstSeen.delete(key);
    if (heldUntil !== Infinity && this.laterSweep === undefined) {
      this.laterSweep = this.options.scheduler.at(heldUntil, () => {
        this.laterSweep = undefined;
        this.sweep();
      });
    }
  }

  /**
   * A key somebody is waiting for (a member resuming here asked it) whose owner is dead: taken here next,
   * whichever survivor its rendezvous names — the claim CAS keeps a race with that claimant safe, and
   * the key then lands on the node its player came back to. Ignored unless its owner is declared dead
   * and this node takes keys (it does not drain).
   */
  want(claim: ClaimView): void {
    if (this.inFlight.has(claim.key)) return;
    if (this.options.ownerState(claim.owner) !== "dead") return;
    if (!this.options.liveNodes().includes(this.options.node)) return;
    this.inFlight.add(claim.key);
    this.urgent[claim.key.startsWith("player/") ? 1 : 0].push(claim);
    this.pump();
  }

  /** Keys being taken over now. */
  get pending(): number {
    return this.inFlight.size;
  }

  /** True while `key` is queued or being taken over here (its seal not written yet). */
  taking(key: string): boolean {
    return this.inFlight.has(key);
  }

  private enqueue(claim: ClaimView): void {
    this.inFlight.add(claim.key);
    this.queued.push(claim);
    this.pump();
  }

  private pump(): void {
    const limit = this.options.concurrency ?? 128;
    for (;;) {
      const urgent = this.urgent[0].length > 0 ? this.urgent[0] : this.urgent[1];
      const claim =
        urgent.length > 0 && this.running < limit + urgentExtra
          ? urgent.shift()
          : this.running < limit
            ? this.queued.shift()
            : undefined;
      if (claim === undefined) break;
      this.running++;
      void this.takeOne(claim).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async takeOne(claim: ClaimView): Promise<void> {
    try {
      const result = await this.options.takeOver(claim.key, claim.revision, claim.owner);
      this.firstSeen.delete(claim.key);
      // Not in flight any more by the time `taken` wakes the callers waiting for the key.
      this.inFlight.delete(claim.key);
      if (result.outcome === "taken") this.options.taken(claim.key, result.epoch);
    } catch (error) {
      this.inFlight.delete(claim.key);
      this.options.failed?.(claim.key, error);
    }
  }
}
