import { PersistError, type ClaimOwner, type Scheduler } from "../../actors/runtime/index.ts";
import { type NodeIdentity, decodeClaim, encodeClaim, sameIdentity } from "./claim.ts";
import type { KvBucket, KvEntry } from "../kv.ts";
import { isExists, isKvError, isWrongRevision } from "../kv-error.ts";
import { type ReadBackPolicy, readBack } from "./read-back.ts";

/**
 * The KvActorStore's writes to the `claims` bucket (key → owning node; a claim's revision is its owner's
 * epoch): taking a claim, moving it to this node, freeing it. Every write is compare-and-set, and one
 * whose outcome is unknown is settled by reading the claim back.
 */
export class ActorClaims {
  private readonly claims: KvBucket;
  private readonly identity: NodeIdentity;
  private readonly policy: ReadBackPolicy;
  private readonly scheduler: Scheduler;

  /** `identity` is read at every write: a fence of this node changes its incarnation in place. */
  constructor(claims: KvBucket, identity: NodeIdentity, policy: ReadBackPolicy, scheduler: Scheduler) {
    this.claims = claims;
    this.identity = identity;
    this.policy = policy;
    this.scheduler = scheduler;
  }

  /** The claim of `key` as the store holds it now, read until the store answers. */
  readBack(key: string): Promise<KvEntry | null> {
    return readBack(() => this.claims.get(key), this.policy, this.scheduler);
  }

  /** Takes the claim; returns its revision, the epoch. A create of ours that timed out but landed counts. */
  async claim(key: string): Promise<number> {
    const value = encodeClaim(this.identity);
    let unknownOutcome = false;
    for (let retries = 1; ; retries -= 1) {
      try {
        return await this.claims.create(key, value);
      } catch (error) {
        if (!isKvError(error)) throw error;
        if (isExists(error) && !unknownOutcome) throw await this.lostClaim(key, error);
        unknownOutcome = true;
      }
      const current = await readBack(() => this.claims.get(key), this.policy, this.scheduler);
      if (current !== null) {
        if (this.isOurs(current)) return current.revision;
        throw new PersistError("exists", `${key} is claimed`, this.ownerOption(current));
      }
      if (retries === 0) throw new PersistError("unavailable", `${key}: the claim could not be written`);
    }
  }

  /** CAS of the claim from `revision` to this node; the new epoch, or null when someone else moved it first. */
  async claimFrom(key: string, revision: number): Promise<number | null> {
    try {
      return await this.claims.update(key, encodeClaim(this.identity), revision);
    } catch (error) {
      if (!isKvError(error)) throw error;
      // Refused: the claim moved since `revision`. Even if it names us now, that is an earlier takeover
      // of ours (this one came from an older view of the claim), which seals it itself; claiming its
      // epoch here too would make two writers of one epoch.
      if (isWrongRevision(error)) return null;
    }
    const current = await readBack(() => this.claims.get(key), this.policy, this.scheduler);
    return current !== null && this.isOurs(current) ? current.revision : null;
  }

  /**
   * Deletes the claim of `key` at `epoch` — its revision while this node has held it, as the actor knows
   * it — without reading it first: one round trip fewer for every lobby that closes. A claim that has
   * moved on from `epoch` is left alone: it is no longer this actor's. False when the outcome is unknown:
   * the caller reads the claim and decides.
   */
  async deleteAt(key: string, epoch: number): Promise<boolean> {
    try {
      await this.claims.delete(key, { expectedRevision: epoch });
      return true;
    } catch (error) {
      if (!isKvError(error)) throw error;
      return isWrongRevision(error);
    }
  }

  /**
   * Frees an orphaned key: deletes the claim (CAS on our epoch) and keeps the tombstone. Deleting it too
   * would let the dead creator's first snapshot, still in flight (a paused process), be created after
   * it: a snapshot with no claim that nobody serves. A create of the code writes over the tombstone.
   */
  async freeOrphan(key: string, epoch: number): Promise<void> {
    try {
      await this.claims.delete(key, { expectedRevision: epoch });
    } catch (error) {
      if (!isKvError(error)) throw error;
      if (isWrongRevision(error)) return; // someone took it from us: theirs to free
      throw new PersistError("unavailable", `${key}: the orphaned claim was not freed`, { cause: error });
    }
  }

  /** Deletes the claim of `key` if it is still ours; someone else's claim is left alone. */
  async releaseOwn(key: string): Promise<void> {
    const claim = await readBack(() => this.claims.get(key), this.policy, this.scheduler);
    if (claim === null || !this.isOurs(claim)) return;
    try {
      await this.claims.delete(key, { expectedRevision: claim.revision });
    } catch (error) {
      if (isWrongRevision(error)) return; // taken over meanwhile: no longer ours to free
      if (isKvError(error))
        throw new PersistError("unavailable", `${key}: the claim was not freed`, { cause: error });
      throw error;
    }
  }

  /** A claim's owner as the runtime sees it: `mine` when it is this very process. */
  ownerOf(claim: NodeIdentity): ClaimOwner {
    return { node: claim.node, incarnation: claim.incarnation, mine: sameIdentity(claim, this.identity) };
  }

  /** The error of a lost claim race, naming the claim that won when it can be read. */
  private async lostClaim(key: string, cause: unknown): Promise<PersistError> {
    let current: KvEntry | null = null;
    try {
      current = await this.claims.get(key);
    } catch {
      // The winner stays unnamed; the caller learns only that the key is taken.
    }
    return new PersistError("exists", `${key} is claimed`, { cause, ...this.ownerOption(current) });
  }

  private ownerOption(entry: KvEntry | null): { owner?: ClaimOwner } {
    if (entry === null) return {};
    try {
      return { owner: this.ownerOf(decodeClaim(entry.value)) };
    } catch {
      return {};
    }
  }

  private isOurs(entry: KvEntry): boolean {
    try {
      return sameIdentity(decodeClaim(entry.value), this.identity);
    } catch {
      return false; // a claim that does not decode is nobody's we know, so not ours
    }
  }
}
