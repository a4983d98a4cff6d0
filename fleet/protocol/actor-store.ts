import {
  PersistError,
  type ActorStore,
  type Scheduler,
  type ClaimOwner,
  type Snapshot,
  type StoredActor,
  type StoredSnapshot,
} from "../../actors/runtime/index.ts";
import { type NodeIdentity, decodeClaim, encodeClaim, sameIdentity } from "./claim.ts";
import { CorruptValueError } from "../corrupt-value-error.ts";
import type { KvBucket, KvEntry } from "../kv.ts";
import { isExists, isKvError, isWrongRevision } from "../kv-error.ts";
import { type ReadBackPolicy, defaultReadBackPolicy, readBack } from "./read-back.ts";
import { decodeSnapshot, encodeSnapshot } from "./snapshot-codec.ts";
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

/**
 * The runtime's ActorStore over two KV buckets, following FLEET-PROTOCOL ("What a KV write's outcome
 * means", "Claiming, sealing, acting"): every write is compare-and-set, and a write whose outcome is
 * unknown is settled by reading back its write id before anything is acknowledged.
 */
export class KvActorStore implements ActorStore {
  private readonly claims: KvBucket;
  private readonly snapshots: KvBucket;
  private readonly identity: NodeIdentity;
  private readonly scheduler: Scheduler;
  private readonly policy: ReadBackPolicy;
  private readonly sealedByRead: ((key: string) => void) | undefined;
  /**
   * What a seal of ours just wrote (or found), kept for the restore that follows it: a takeover or an
   * adoption is sealed and then restored at once, and reading back the claim and the snapshot it has
   * just settled would cost two more round trips per key. Taken once, and only while fresh.
   */
  private readonly sealed = new Map<string, { stored: StoredActor; at: number; incarnation: string }>();

  constructor(options: KvActorStoreOptions) {
    // Actor keys may hold any player id; the buckets see them escaped to what KV keys allow.
    this.claims = withEscapedKeys(options.claims);
    this.snapshots = withEscapedKeys(options.snapshots);
    this.identity = options.identity;
    this.scheduler = options.scheduler;
    this.policy = options.readBack ?? defaultReadBackPolicy;
    this.sealedByRead = options.sealedByRead;
  }

  async create(
    key: string,
    initial: (epoch: number) => Snapshot,
  ): Promise<{ epoch: number; revision: number }> {
    const epoch = await this.claim(key);
    let writeId: string | undefined;
    try {
      const snapshot = initial(epoch);
      writeId = snapshot.writeId;
      const revision = await this.writeNew(key, snapshot);
      return { epoch, revision };
    } catch (error) {
      await this.abandon(key, epoch, writeId);
      throw error;
    }
  }

  async read(key: string, again = false): Promise<StoredActor | null> {
    const sealed = this.takeSealed(key);
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
    const owner = this.ownerOf(decodeClaim(claim.value));
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
    const entry = await readBack(() => this.claims.get(key), this.policy, this.scheduler);
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
    this.sealed.delete(key);
    // The incarnation the claim is signed with: a fence during the CAS or the seal changes this node's.
    const { incarnation } = this.identity;
    // The snapshot is read while the claim CAS is in flight, one round trip instead of two in sequence:
    // the seal writes it back compare-and-set on the revision read, so an older owner's write that lands
    // after the read fails the seal, which reads again. (A read that fails is simply made again there.)
    const [epoch, current] = await Promise.all([
      this.claimFrom(key, claimRevision),
      this.readBackSnapshot(key).catch(() => undefined),
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
      const current = round === 0 && first !== undefined ? first : await this.readBackSnapshot(key);
      if (current === null || current.snapshot.kind === orphanKind) {
        // A tombstone of an older epoch (a freed orphan whose code was claimed again by a creator that
        // then died) is replaced by ours, so that creator's late first snapshot cannot land either.
        const ours = current !== null && current.snapshot.epoch >= epoch;
        if (!ours && !(await this.writeOrphanTombstone(key, epoch, current?.revision))) continue;
        await this.freeOrphan(key, epoch);
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
            await this.writeAt(key, sealed, current.revision, true),
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
    this.sealed.delete(key);
    return this.writeAt(key, snapshot, revision, false);
  }

  /**
   * Notes a seal of ours for the restore that follows (see `sealed`); the takeover's outcome. Kept under
   * the incarnation that signed the claim: a seal that outlives a fence of this node is never taken as
   * the next incarnation's.
   */
  private keepSealed(key: string, snapshot: Snapshot, revision: number, incarnation: string): TakeOver {
    const now = this.scheduler.now();
    // Seals the restore never read (a key taken while this node was being declared dead) age out here.
    for (const [older, entry] of this.sealed) {
      if (now - entry.at <= sealedFreshMs) break;
      this.sealed.delete(older);
    }
    const { node } = this.identity;
    this.sealed.delete(key);
    this.sealed.set(key, {
      stored: { snapshot, revision, epoch: snapshot.epoch, owner: { node, incarnation, mine: true } },
      at: now,
      incarnation,
    });
    return { outcome: "taken", epoch: snapshot.epoch, revision };
  }

  /** The seal just noted for `key`, once, if it is fresh and this incarnation's. */
  private takeSealed(key: string): StoredActor | null {
    const entry = this.sealed.get(key);
    if (entry === undefined) return null;
    this.sealed.delete(key);
    const fresh = this.scheduler.now() - entry.at <= sealedFreshMs;
    return fresh && entry.incarnation === this.identity.incarnation ? entry.stored : null;
  }

  /** A write; a seal (`sealing`) never retries over a snapshot of its own epoch (see `seal`). */
  private async writeAt(
    key: string,
    snapshot: Snapshot,
    revision: number,
    sealing: boolean,
  ): Promise<number> {
    const value = encodeSnapshot(snapshot);
    let expected = revision;
    // Only our own earlier write moves the revision at our epoch, and this one supersedes it: retry once.
    for (let retries = 1; ; retries -= 1) {
      try {
        return await this.snapshots.update(key, value, expected);
      } catch (error) {
        if (!isKvError(error)) throw error;
      }
      const current = await this.readBackSnapshot(key);
      if (current === null) throw new PersistError("fenced", `${key}: the snapshot was deleted`);
      if (current.snapshot.writeId === snapshot.writeId) return current.revision;
      const { epoch } = current.snapshot;
      if (epoch > snapshot.epoch) {
        throw new PersistError("fenced", `${key}: epoch ${epoch} owns it now (ours ${snapshot.epoch})`);
      }
      if (epoch < snapshot.epoch) {
        // An older owner wrote after our read (a seal race): its write may have been acknowledged, so
        // overwriting it blindly would lose it. The caller must read again and seal that.
        throw new PersistError(
          "unavailable",
          `${key}: epoch ${epoch} wrote revision ${current.revision} after our read; read again and seal`,
        );
      }
      if (retries === 0 || sealing) {
        throw new PersistError(
          "unavailable",
          `${key}: revision moved again to ${current.revision}; retry later`,
        );
      }
      expected = current.revision;
    }
  }

  async remove(key: string, revision: number, epoch?: number): Promise<void> {
    this.sealed.delete(key);
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
    if (epoch !== undefined && (await this.deleteClaimAt(key, epoch))) return;
    await this.releaseOwnClaim(key);
  }

  /**
   * Deletes the claim of `key` at `epoch` — its revision while this node has held it, as the actor knows
   * it — without reading it first: one round trip fewer for every lobby that closes. A claim that has
   * moved on from `epoch` is left alone: it is no longer this actor's. False when the outcome is unknown:
   * the caller reads the claim and decides.
   */
  private async deleteClaimAt(key: string, epoch: number): Promise<boolean> {
    try {
      await this.claims.delete(key, { expectedRevision: epoch });
      return true;
    } catch (error) {
      if (!isKvError(error)) throw error;
      return isWrongRevision(error);
    }
  }

  /** CAS of the claim from `revision` to this node; the new epoch, or null when someone else moved it first. */
  private async claimFrom(key: string, revision: number): Promise<number | null> {
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

  /** An orphan's tombstone snapshot; true when ours landed (nothing was ever acknowledged under the key). */
  private async writeOrphanTombstone(key: string, epoch: number, over?: number): Promise<boolean> {
    const tombstone: Snapshot = {
      format: 1,
      kind: orphanKind,
      schemaVersion: 0,
      key,
      epoch,
      seq: 0,
      writeId: `orphan~${epoch}`,
      state: null,
      timers: [],
      results: [],
    };
    try {
      if (over === undefined) await this.writeNew(key, tombstone);
      else await this.writeAt(key, tombstone, over, true);
      return true;
    } catch (error) {
      if (error instanceof PersistError && error.failure !== "unavailable") return false;
      if (error instanceof PersistError && over !== undefined) return false; // read again
      throw error;
    }
  }

  /**
   * Frees an orphaned key: deletes the claim (CAS on our epoch) and keeps the tombstone. Deleting it too
   * would let the dead creator's first snapshot, still in flight (a paused process), be created after
   * it: a snapshot with no claim that nobody serves. A create of the code writes over the tombstone.
   */
  private async freeOrphan(key: string, epoch: number): Promise<void> {
    try {
      await this.claims.delete(key, { expectedRevision: epoch });
    } catch (error) {
      if (!isKvError(error)) throw error;
      if (isWrongRevision(error)) return; // someone took it from us: theirs to free
      throw new PersistError("unavailable", `${key}: the orphaned claim was not freed`, { cause: error });
    }
  }

  /** Takes the claim; returns its revision, the epoch. A create of ours that timed out but landed counts. */
  private async claim(key: string): Promise<number> {
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

  /**
   * Creates the first snapshot, settling an unknown outcome by its write id. A freed orphan's tombstone of
   * an older epoch is written over (compare-and-set on its revision): the code is free.
   */
  private async writeNew(key: string, snapshot: Snapshot): Promise<number> {
    const value = encodeSnapshot(snapshot);
    let over: number | undefined;
    for (let retries = 2; ; retries -= 1) {
      let failure: unknown;
      try {
        if (over === undefined) return await this.snapshots.create(key, value);
        return await this.snapshots.update(key, value, over);
      } catch (error) {
        if (!isKvError(error)) throw error;
        failure = error;
      }
      const current = await this.readBackSnapshot(key);
      if (current?.snapshot.writeId === snapshot.writeId) return current.revision;
      const freed = current?.snapshot.kind === orphanKind && current.snapshot.epoch < snapshot.epoch;
      if (current !== null && freed && retries > 0) {
        over = current.revision;
        continue;
      }
      if (current !== null || (isExists(failure) && over === undefined)) {
        throw new PersistError("exists", `${key} already has a snapshot`, { cause: failure });
      }
      if (retries === 0) throw new PersistError("unavailable", `${key}: the snapshot could not be written`);
      over = undefined;
    }
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
      if (writeId !== undefined && mayLand && !(await this.writeOrphanTombstone(key, epoch, entry?.revision)))
        return;
      await this.claims.delete(key, { expectedRevision: epoch });
    } catch {
      // Best effort: the create already failed, and that failure is what the caller needs to see.
    }
  }

  /** Deletes the claim of `key` if it is still ours; someone else's claim is left alone. */
  private async releaseOwnClaim(key: string): Promise<void> {
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

  /** Reads the snapshot until the store answers; a corrupt one leaves the outcome unknown. */
  private async readBackSnapshot(key: string): Promise<StoredSnapshot | null> {
    const entry = await readBack(() => this.snapshots.get(key), this.policy, this.scheduler);
    if (entry === null) return null;
    try {
      return { snapshot: decodeSnapshot(entry.value), revision: entry.revision };
    } catch (error) {
      if (!(error instanceof CorruptValueError)) throw error;
      throw new PersistError("unavailable", `${key}: the stored snapshot does not decode`, { cause: error });
    }
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

  private ownerOf(claim: NodeIdentity): ClaimOwner {
    return { node: claim.node, incarnation: claim.incarnation, mine: sameIdentity(claim, this.identity) };
  }

  private isOurs(entry: KvEntry): boolean {
    try {
      return sameIdentity(decodeClaim(entry.value), this.identity);
    } catch {
      return false; // a claim that does not decode is nobody's we know, so not ours
    }
  }
}

/** How long a seal of ours stands in for a read of the key (the restore follows it at once). */
const sealedFreshMs = 2_000;

/** The snapshot kind of an orphan's tombstone: never restored, only freed. */
const orphanKind = "$orphan";

/** How a takeover ended: the key is ours (sealed at `epoch`), another node's, or freed (an orphan). */
export type TakeOver =
  | { readonly outcome: "taken"; readonly epoch: number; readonly revision: number }
  | { readonly outcome: "lost" }
  | { readonly outcome: "freed" };

/** Runs KV reads; a KvError becomes PersistError("unavailable"). */
async function unavailableOnKvError<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (isKvError(error)) throw new PersistError("unavailable", error.message, { cause: error });
    throw error;
  }
}
