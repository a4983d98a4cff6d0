import {
  PersistError,
  type ActorStore,
  type Scheduler,
  type Snapshot,
  type StoredActor,
  type StoredSnapshot,
} from "../../actors/runtime/index.ts";
import { ActorClaims } from "./actor-claims.ts";
import { ActorSnapshots } from "./actor-snapshots.ts";
import { type NodeIdentity, decodeClaim } from "./claim.ts";
import type { KvBucket } from "../kv.ts";
import { isKvError } from "../kv-error.ts";
import { orphanKind } from "./orphan-tombstone.ts";
import { type ReadBackPolicy, defaultReadBackPolicy, readBack } from "./read-back.ts";
import { SealCache } from "./seal-cache.ts";
import { decodeSnapshot } from "./snapshot-codec.ts";
import { withEscapedKeys } from "../escaped-keys.ts";

/** What a KvActorStore is made of. */
export interface KvActorStoreOptions {
  /** The bucket `claims`: key → owning node; the claim's revision is the owner's epoch. */
  readonly claims: KvBucket;
  /** The snapshot bucket (`lobbies`, or one of several by key hash). */
  readonly snapshots: KvBucket;
  /** This process, as it signs its claims. */
  readonly identity: NodeIdentity;
  /** Paces read-backs after an unknown outcome. */
  readonly scheduler: Scheduler;
  readonly readBack?: ReadBackPolicy;
  /**
   * Told when a read wrote the seal of a claim of ours that was not sealed yet: its takeover gave up (its
   * CAS landed after the read-back said it had not), failed after the CAS, or is still sealing (then its
   * own seal finds this one, and its `taken` follows; the caller tells the actor `restored` only when no
   * takeover or adoption of the key is in flight).
   */
  readonly sealedByRead?: (key: string) => void;
}

/** How a takeover ended: the key is ours (sealed at `epoch`), another node's, or freed (an orphan). */
export type TakeOver =
  | { readonly outcome: "taken"; readonly epoch: number; readonly revision: number }
  | { readonly outcome: "lost" }
  | { readonly outcome: "freed" };

/**
 * The runtime's ActorStore over two KV buckets, following FLEET-PROTOCOL ("What a KV write's outcome
 * means", "Claiming, sealing, acting"): every write is compare-and-set, and a write whose outcome is
 * unknown is settled by reading back its write id before anything is acknowledged. The writes of each
 * bucket are ActorClaims' and ActorSnapshots'; this class pairs them into creates, reads, seals and removals.
 */
export class KvActorStore implements ActorStore {
  private readonly claims: KvBucket;
  private readonly snapshots: KvBucket;
  private readonly claimWrites: ActorClaims;
  private readonly snapshotWrites: ActorSnapshots;
  private readonly identity: NodeIdentity;
  private readonly scheduler: Scheduler;
  private readonly policy: ReadBackPolicy;
  private readonly sealedByRead: ((key: string) => void) | undefined;
  /** The seals just written or found, for the restores that follow them (see SealCache). */
  private readonly sealed: SealCache;

  constructor(options: KvActorStoreOptions) {
    // Actor keys may hold any player id; the buckets see them escaped to what KV keys allow.
    this.claims = withEscapedKeys(options.claims);
    this.snapshots = withEscapedKeys(options.snapshots);
    this.identity = options.identity;
    this.scheduler = options.scheduler;
    this.policy = options.readBack ?? defaultReadBackPolicy;
    this.sealedByRead = options.sealedByRead;
    this.claimWrites = new ActorClaims(this.claims, this.identity, this.policy, this.scheduler);
    this.snapshotWrites = new ActorSnapshots(this.snapshots, this.policy, this.scheduler);
    this.sealed = new SealCache(this.scheduler);
  }

  async create(
    key: string,
    initial: (epoch: number) => Snapshot,
  ): Promise<{ epoch: number; revision: number }> {
    const epoch = await this.claimWrites.claim(key);
    let writeId: string | undefined;
    try {
      const snapshot = initial(epoch);
      writeId = snapshot.writeId;
      const revision = await this.snapshotWrites.writeNew(key, snapshot);
      return { epoch, revision };
    } catch (error) {
      await this.abandon(key, epoch, writeId);
      throw error;
    }
  }

  async read(key: string, again = false): Promise<StoredActor | null> {
    const sealed = this.sealed.take(key, this.identity.incarnation);
    if (sealed !== null) return sealed;
    // The claim first: a snapshot read after it is at least as new as the epoch it is paired with.
    const [claim, entry] = await unavailableOnKvError(async () => [
      await this.claims.get(key),
      await this.snapshots.get(key),
    ]);
    if (entry === null) return null;
    const snapshot = decodeSnapshot(entry.value);
    // A freed orphan keeps its tombstone (it fences the dead creator's late first snapshot): a free key.
    if (snapshot.kind === orphanKind && claim === null) return null;
    if (claim === null) {
      // A create between our two reads (its claim after the first, its snapshot before the second): the
      // claim is there when read again. Still none: a snapshot nobody owns.
      if (!again) return this.read(key, true);
      throw new PersistError("fenced", `${key}: a snapshot but no claim; nobody owns it`);
    }
    // The claim moved between the two reads (a takeover sealed after we read it): pairing the newer
    // snapshot with the older claim would restore an actor at an epoch that no longer owns the key, still
    // "ours". Read both again: the claim read next is at least as new as this snapshot.
    if (snapshot.epoch > claim.revision) return this.read(key);
    const owner = this.claimWrites.ownerOf(decodeClaim(claim.value));
    if (snapshot.kind === orphanKind) {
      throw new PersistError("unavailable", `${key}: an orphaned claim is being freed; retry shortly`);
    }
    // A claim of ours not sealed yet: a takeover in flight, or one whose claim landed after its read-back
    // said it had not (a timeout that still wrote), which nobody would ever seal. The new owner acts only
    // after its seal, so seal it now; a takeover racing us finds it sealed and stops.
    if (owner.mine && snapshot.epoch < claim.revision) {
      const sealed = await this.seal(key, claim.revision);
      if (sealed.outcome !== "taken") {
        throw new PersistError("unavailable", `${key}: epoch ${claim.revision} is not sealed yet`);
      }
      // Only a seal this read wrote: one it found was a takeover's, and that takeover tells the actor.
      if (sealed.wrote === true) this.sealedByRead?.(key);
      return this.read(key);
    }
    return { snapshot, revision: entry.revision, epoch: claim.revision, owner };
  }

  /** The claim of `key` as the store holds it now (read from the leader), or null when unclaimed. */
  async readClaim(key: string): Promise<{ owner: NodeIdentity; revision: number } | null> {
    const entry = await this.claimWrites.readBack(key);
    return entry === null ? null : { owner: decodeClaim(entry.value), revision: entry.revision };
  }

  /**
   * Takes over `key` from a dead owner whose claim is at `claimRevision` (FLEET-PROTOCOL, "Claiming,
   * sealing, acting" 3 and "Orphans" 4): CAS the claim to this node — its new revision is our epoch —
   * then seal the snapshot by writing it back under that epoch, reading again whenever the old owner
   * squeezed in a write. A claim with no snapshot is an orphan: a tombstone snapshot decides whether the
   * create was ever acknowledged; if ours wins, the code is freed.
   */
  async takeOver(key: string, claimRevision: number): Promise<TakeOver> {
    this.sealed.drop(key);
    // The incarnation the claim is signed with: a fence during the CAS or the seal changes this node's.
    const { incarnation } = this.identity;
    // The snapshot is read while the claim CAS is in flight, one round trip instead of two in sequence:
    // the seal writes it back compare-and-set on the revision read, so an older owner's write that lands
    // after the read fails the seal, which reads again. (A read that fails is simply made again there.)
    const [epoch, current] = await Promise.all([
      this.claimWrites.claimFrom(key, claimRevision),
      this.snapshotWrites.readBack(key).catch(() => undefined),
    ]);
    if (epoch === null) return { outcome: "lost" };
    return this.seal(key, epoch, current, incarnation);
  }

  /**
   * Seals `key` under `epoch`, a claim of ours: writes the current snapshot back with our epoch, reading
   * again whenever the old owner squeezed in a write. A snapshot already at our epoch that is not our
   * seal means another seal of ours got there first (a takeover and a restore racing, or two takeovers
   * from views of different age): the key is sealed, and writing over it could drop what its actor
   * wrote and acknowledged since — so we stop there.
   */
  private async seal(
    key: string,
    epoch: number,
    first?: StoredSnapshot | null,
    incarnation: string = this.identity.incarnation,
  ): Promise<TakeOver & { readonly wrote?: true }> {
    for (let round = 0; round < 8; round++) {
      const current = round === 0 && first !== undefined ? first : await this.snapshotWrites.readBack(key);
      if (current === null || current.snapshot.kind === orphanKind) {
        // A tombstone of an older epoch (a freed orphan whose code was claimed again by a creator that
        // then died) is replaced by ours, so that creator's late first snapshot cannot land either.
        const ours = current !== null && current.snapshot.epoch >= epoch;
        if (!ours && !(await this.snapshotWrites.writeOrphanTombstone(key, epoch, current?.revision)))
          continue;
        await this.claimWrites.freeOrphan(key, epoch);
        return { outcome: "freed" };
      }
      if (current.snapshot.epoch > epoch) return { outcome: "lost" };
      if (current.snapshot.epoch === epoch)
        return this.keepSealed(key, current.snapshot, current.revision, incarnation);
      const sealed = { ...current.snapshot, epoch, writeId: `${current.snapshot.writeId}~seal${epoch}` };
      try {
        return {
          ...this.keepSealed(
            key,
            sealed,
            await this.snapshotWrites.writeAt(key, sealed, current.revision, true),
            incarnation,
          ),
          wrote: true,
        };
      } catch (error) {
        if (error instanceof PersistError && error.failure === "fenced") return { outcome: "lost" };
        if (!(error instanceof PersistError)) throw error;
        // The old owner wrote after our read (its write may have been acknowledged), or another seal of
        // ours landed: read again and seal that (or stop, sealed).
      }
    }
    throw new PersistError("unavailable", `${key}: the seal did not settle; try again later`);
  }

  async write(key: string, snapshot: Snapshot, revision: number): Promise<number> {
    this.sealed.drop(key);
    return this.snapshotWrites.writeAt(key, snapshot, revision, false);
  }

  /** Notes a seal of ours for the restore that follows, under the incarnation that signed the claim. */
  private keepSealed(key: string, snapshot: Snapshot, revision: number, incarnation: string): TakeOver {
    const { node } = this.identity;
    const owner = { node, incarnation, mine: true };
    this.sealed.keep(key, { snapshot, revision, epoch: snapshot.epoch, owner }, incarnation);
    return { outcome: "taken", epoch: snapshot.epoch, revision };
  }

  async remove(key: string, revision: number, epoch?: number): Promise<void> {
    this.sealed.drop(key);
    for (let retries = 1; ; retries -= 1) {
      try {
        await this.snapshots.delete(key, { expectedRevision: revision });
        break;
      } catch (error) {
        if (!isKvError(error)) throw error;
      }
      const current = await readBack(() => this.snapshots.get(key), this.policy, this.scheduler);
      if (current === null) break; // an earlier delete of ours landed
      if (current.revision !== revision) {
        throw new PersistError("fenced", `${key}: written at revision ${current.revision} since ${revision}`);
      }
      if (retries === 0) throw new PersistError("unavailable", `${key}: the snapshot could not be deleted`);
    }
    if (epoch !== undefined && (await this.claimWrites.deleteAt(key, epoch))) return;
    await this.claimWrites.releaseOwn(key);
  }

  /**
   * After a failed create, frees the key again — unless the first snapshot may have landed after all,
   * which the read tells; if the store does not answer, the claim stays (its owner is alive, so nobody
   * takes it, and the code is merely unused). A first snapshot not there yet may still be in flight (a
   * timeout that lands late): it is fenced first with a tombstone of our epoch, kept as a freed orphan's
   * is — otherwise it could land after the claim is gone, a snapshot nobody owns. If the tombstone loses,
   * our snapshot landed: the claim stays, and the key is served once restored.
   */
  private async abandon(key: string, epoch: number, writeId: string | undefined): Promise<void> {
    try {
      const entry = await this.snapshots.get(key);
      const current = entry === null ? null : decodeSnapshot(entry.value);
      if (current !== null && writeId !== undefined && current.writeId === writeId) return;
      const mayLand = current === null || (current.kind === orphanKind && current.epoch < epoch);
      if (
        writeId !== undefined &&
        mayLand &&
        !(await this.snapshotWrites.writeOrphanTombstone(key, epoch, entry?.revision))
      )
        return;
      await this.claims.delete(key, { expectedRevision: epoch });
    } catch {
      // Best effort: the create already failed, and that failure is what the caller needs to see.
    }
  }
}

/** Runs KV reads; a KvError becomes PersistError("unavailable"). */
async function unavailableOnKvError<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isKvError(error)) throw new PersistError("unavailable", error.message, { cause: error });
    throw error;
  }
}
