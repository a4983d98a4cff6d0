import type { Scheduler } from "../../actors/runtime/index.ts";
import type { ClaimIndex } from "./claim-index.ts";
import type { NodeIdentity } from "./claim.ts";
import type { ClaimView } from "./failover.ts";
import type { OwnerState } from "./peer-table.ts";

/** What DeadNodeKeys reads and tells. */
export interface DeadNodeKeysOptions {
  readonly index: ClaimIndex;
  readonly ownerState: (owner: NodeIdentity) => OwnerState;
  readonly scheduler: Scheduler;
  /**
   * How long after a listing a dead node's index is listed again, while some of its keys are not taken:
   * what other survivors took is gone from it by then, and what is left falls to whoever sweeps.
   */
  readonly relistMs: number;
  /** A listing brought keys of dead owners: the failover sweeps now. */
  readonly listed: () => void;
  /** A listing failed (tried again after `relistMs`). */
  readonly failed?: (node: string, error: unknown) => void;
  /**
   * This node's id, and what becomes of a key its listing of its own prefix finds (a claim of one of its
   * earlier incarnations): taken here at once. The survivors may have listed this node before that claim
   * landed (a process frozen past its death sends its claims late) and list it no more, so a rendezvous
   * claimant among them would never hear of the key, which would wait for the fallback sweep here.
   */
  readonly own?: { readonly node: string; readonly found: (claim: ClaimView) => void };
}

/** The revision of a listed key whose claim has not been read yet. */
export const unreadRevision = 0;

interface DeadNode {
  claims: Map<string, ClaimView>;
  /** Listings still to make even if they find nothing (a paused process's late claim may land yet). */
  atLeast: number;
  listing: boolean;
  cancel: () => void;
}

/**
 * The keys of dead nodes as the claim index names them, for the failover to sweep without a view of
 * the whole claims bucket: at a death, one listing of the node's entries (its prefix, every incarnation:
 * an older one replaced unseen is caught too), then again every `relistMs` until no key of a dead owner
 * is left in it (twice at least: a claim sent just before the death may land after the first). A node
 * fenced while paused lists its own prefix when it rejoins: the claims its old incarnation sent while
 * frozen may have landed after every survivor's listing. A listed key's revision is not known (`unreadRevision`): the node that takes it reads
 * its claim first, so an entry that outlived its claim costs one read.
 */
export class DeadNodeKeys {
  private readonly nodes = new Map<string, DeadNode>();
  private stopped = false;

  constructor(private readonly options: DeadNodeKeysOptions) {}

  /** `node` has a dead incarnation: list its keys now (again, when it is being followed already). */
  died(node: string): void {
    let dead = this.nodes.get(node);
    if (dead === undefined) {
      dead = { claims: new Map(), atLeast: 0, listing: false, cancel: () => undefined };
      this.nodes.set(node, dead);
    }
    dead.atLeast = 2;
    dead.cancel();
    void this.list(node, dead);
  }

  /** Every listed key whose owner is dead now. */
  *claims(): Iterable<ClaimView> {
    for (const dead of this.nodes.values())
      for (const claim of dead.claims.values())
        if (this.options.ownerState(claim.owner) === "dead") yield claim;
  }

  /** `key` is settled (taken here or elsewhere, freed, or not a dead owner's): no longer swept. */
  settled(key: string, owner: NodeIdentity): void {
    this.nodes.get(owner.node)?.claims.delete(key);
  }

  /** Read through a call: a stop may come while a listing is in flight. */
  private isStopped(): boolean {
    return this.stopped;
  }

  stop(): void {
    this.stopped = true;
    for (const dead of this.nodes.values()) dead.cancel();
    this.nodes.clear();
  }

  private async list(node: string, dead: DeadNode): Promise<void> {
    if (dead.listing || this.isStopped()) return;
    dead.listing = true;
    let found: number;
    try {
      const claims = new Map<string, ClaimView>();
      for (const entry of await this.options.index.listNode(node)) {
        if (this.options.ownerState(entry.owner) !== "dead") continue;
        claims.set(entry.key, { key: entry.key, owner: entry.owner, revision: unreadRevision });
      }
      dead.claims = claims;
      found = claims.size;
    } catch (error) {
      this.options.failed?.(node, error);
      found = -1;
    } finally {
      dead.listing = false;
    }
    if (this.isStopped() || this.nodes.get(node) !== dead) return;
    if (found >= 0) dead.atLeast = Math.max(0, dead.atLeast - 1);
    if (found === 0 && dead.atLeast === 0) {
      this.nodes.delete(node);
      return;
    }
    if (found > 0 && node === this.options.own?.node)
      for (const claim of dead.claims.values()) this.options.own.found(claim);
    if (found > 0) this.options.listed();
    const { scheduler } = this.options;
    dead.cancel = scheduler.at(scheduler.now() + this.options.relistMs, () => {
      void this.list(node, dead);
    });
  }
}
