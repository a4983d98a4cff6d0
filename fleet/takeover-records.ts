import type { ClaimView } from "./protocol/index.ts";

/** One key this node took over from a peer declared dead. */
export interface FailoverRecord {
  readonly key: string;
  /** The node that owned it before (its claim as this node last saw it), or null when unknown. */
  readonly from: string | null;
  readonly epoch: number;
  /** Wall-clock milliseconds, for the operator's eyes only. */
  readonly at: number;
}

/** How many takeovers `failovers()` keeps; the count keeps going. */
const recentFailovers = 50;
/** How many peers' times of death a node keeps for the recovery time. */
const recentDeaths = 64;

/**
 * What a node remembers of its takeovers: how many it made and the latest (the admin API's fleet view),
 * and, for the recovery time its metrics report, when each peer died and which node each key in flight
 * is being taken from.
 */
export class TakeoverRecords {
  private count = 0;
  private readonly recent: FailoverRecord[] = [];
  /** When this node learned each peer died (its scheduler's clock), by node id; the last few. */
  private readonly deadSince = new Map<string, number>();
  /**
   * The dead owner of each key as the last failover sweep read the claims. The router's cache names the
   * new owner by the time a takeover is reported, so the owner is noted while the sweep reads (rebuilt
   * each sweep: a queued key still owned by a dead node is noted again).
   */
  private deadOwners = new Map<string, string>();
  /** The node each takeover in flight takes its key from. */
  private readonly takenFrom = new Map<string, string>();

  /** `node` was declared dead at `now`. */
  peerDied(node: string, now: number): void {
    this.deadSince.delete(node);
    this.deadSince.set(node, now);
    for (const oldest of this.deadSince.keys()) {
      if (this.deadSince.size <= recentDeaths) break;
      this.deadSince.delete(oldest);
    }
  }

  /** Passes the claims through, noting those whose owner `isDead` says is dead (one sweep's view). */
  *noteDeadOwners(claims: Iterable<ClaimView>, isDead: (claim: ClaimView) => boolean): Iterable<ClaimView> {
    const noted = new Map<string, string>();
    this.deadOwners = noted;
    for (const claim of claims) {
      if (isDead(claim)) noted.set(claim.key, claim.owner.node);
      yield claim;
    }
  }

  /** A takeover of `key` starts: remember whom it takes the key from. */
  starting(key: string): void {
    const owner = this.deadOwners.get(key);
    if (owner !== undefined) this.takenFrom.set(key, owner);
  }

  /** A takeover of `key` ended without taking it. */
  notTaken(key: string): void {
    this.takenFrom.delete(key);
  }

  /**
   * `key` was taken at `epoch`: recorded at wall-clock `at`. Returns the ms since its old owner died by
   * the scheduler's clock `now`, when this node saw it die.
   */
  taken(key: string, epoch: number, at: number, now: number): number | undefined {
    const from = this.takenFrom.get(key) ?? null;
    this.takenFrom.delete(key);
    this.count++;
    this.recent.push({ key, from, epoch, at });
    if (this.recent.length > recentFailovers) this.recent.shift();
    const died = from === null ? undefined : this.deadSince.get(from);
    return died === undefined ? undefined : now - died;
  }

  /** The takeovers since this node started: how many, and the latest (newest last). */
  failovers(): { count: number; recent: readonly FailoverRecord[] } {
    return { count: this.count, recent: [...this.recent] };
  }
}
