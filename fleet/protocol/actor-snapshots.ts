import {
  PersistError,
  type Scheduler,
  type Snapshot,
  type StoredSnapshot,
} from "../../actors/runtime/index.ts";
import { CorruptValueError } from "../corrupt-value-error.ts";
import type { KvBucket } from "../kv.ts";
import { isExists, isKvError } from "../kv-error.ts";
import { orphanKind, orphanTombstone } from "./orphan-tombstone.ts";
import { type ReadBackPolicy, readBack } from "./read-back.ts";
import { decodeSnapshot, encodeSnapshot } from "./snapshot-codec.ts";

/**
 * The KvActorStore's writes to the snapshot bucket: every one compare-and-set, and one whose outcome is
 * unknown settled by reading back its write id before anything is acknowledged.
 */
export class ActorSnapshots {
  private readonly snapshots: KvBucket;
  private readonly policy: ReadBackPolicy;
  private readonly scheduler: Scheduler;

  constructor(snapshots: KvBucket, policy: ReadBackPolicy, scheduler: Scheduler) {
    this.snapshots = snapshots;
    this.policy = policy;
    this.scheduler = scheduler;
  }

  /** Reads the snapshot until the store answers; a corrupt one leaves the outcome unknown. */
  async readBack(key: string): Promise<StoredSnapshot | null> {
    const entry = await readBack(() => this.snapshots.get(key), this.policy, this.scheduler);
    if (entry === null) return null;
    try {
      return { snapshot: decodeSnapshot(entry.value), revision: entry.revision };
    } catch (error) {
      if (!(error instanceof CorruptValueError)) throw error;
      throw new PersistError("unavailable", `${key}: the stored snapshot does not decode`, { cause: error });
    }
  }

  /** A write; a seal (`sealing`) never retries over a snapshot of its own epoch (see KvActorStore `seal`). */
  async writeAt(key: string, snapshot: Snapshot, revision: number, sealing: boolean): Promise<number> {
    const value = encodeSnapshot(snapshot);
    let expected = revision;
    // Only our own earlier write moves the revision at our epoch, and this one supersedes it: retry once.
    for (let retries = 1; ; retries -= 1) {
      try {
        return await this.snapshots.update(key, value, expected);
      } catch (error) {
        if (!isKvError(error)) throw error;
      }
      const current = await this.readBack(key);
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

  /**
   * Creates the first snapshot, settling an unknown outcome by its write id. A freed orphan's tombstone of
   * an older epoch is written over (compare-and-set on its revision): the code is free.
   */
  async writeNew(key: string, snapshot: Snapshot): Promise<number> {
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
      const current = await this.readBack(key);
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

  /** An orphan's tombstone snapshot; true when ours landed (nothing was ever acknowledged under the key). */
  async writeOrphanTombstone(key: string, epoch: number, over?: number): Promise<boolean> {
    const tombstone = orphanTombstone(key, epoch);
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
}
