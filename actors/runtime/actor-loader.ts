import { ActorCell } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import type { Creation } from "./actor-creator.ts";
import type { ActorTable, LoadFailure } from "./actor-table.ts";
import { restoredDeadline } from "./cell-timers.ts";
import type { SnapshotResult, StoredActor } from "./ports.ts";
import type { ResultBounds } from "./request-results.ts";
import type { ApartResults } from "./result-chunks.ts";
import type { RequestId } from "./types.ts";

/** What loading needs from the system: creating on demand, settling spawns, arming restored timers. */
export interface LoaderHost {
  readonly resultBounds: ResultBounds;
  /** See ActorCreator.create. */
  create(key: string, init: unknown, request: RequestId | undefined): Promise<Creation>;
  /** See RestoredSpawns.settleSpawns. */
  settleSpawns(key: string, stored: StoredActor): Promise<StoredActor | null>;
  arm(cell: ActorCell, name: string, kind: "game" | "grace", at: number): void;
}

/** Brings keys into memory: restored from their snapshot, or created on demand. */
export class ActorLoader {
  constructor(
    private readonly table: ActorTable,
    private readonly options: ActorSystemOptions,
    private readonly host: LoaderHost,
  ) {}

  /** Brings an actor into memory: from its snapshot, or created on demand. Never rejects. */
  load(key: string): Promise<ActorCell | LoadFailure> {
    const existing = this.table.loading.get(key);
    if (existing)
      return existing.then((loaded) =>
        loaded instanceof ActorCell ? loaded : (this.table.cells.get(key) ?? loaded),
      );
    const promise = this.restore(key)
      .catch((error: unknown): LoadFailure => {
        this.options.events?.persistFailed?.(key, error);
        return "corrupt";
      })
      .finally(() => this.table.loading.delete(key));
    this.table.loading.set(key, promise);
    return promise;
  }

  private async restore(key: string): Promise<ActorCell | LoadFailure> {
    const registration = this.table.registration(key);
    if (!registration) return "missing";
    const generation = this.table.generation;
    let stored: StoredActor | null;
    try {
      stored = await this.options.store.read(key);
    } catch (error) {
      this.options.events?.persistFailed?.(key, error);
      return "unavailable";
    }
    if (!stored) {
      if (!registration.createOnDemand) return "missing";
      const created = await this.host.create(key, undefined, undefined);
      if (created.created) {
        const live = this.table.cells.get(key);
        if (live !== undefined) return live;
        return !created.result.ok && created.result.code === "UNAVAILABLE" ? "unavailable" : "missing";
      }
      // Lost the claim race: the winner owns it (its first snapshot may not be written yet).
      if ("owner" in created && !created.owner.mine) return { elsewhere: created.owner.node };
      stored = await this.options.store.read(key);
      if (!stored) return "missing";
    }
    // Restored only by the process its claim names: any other would be a second live copy.
    if (!stored.owner.mine) return { elsewhere: stored.owner.node };
    if (generation !== this.table.generation) return "unavailable";
    if (stored.snapshot.spawning !== undefined) {
      const settled = await this.host.settleSpawns(key, stored);
      if (settled === null || generation !== this.table.generation) return "unavailable";
      stored = settled;
    }
    const { snapshot } = stored;
    const apart = await this.readApart(key, snapshot.apart ?? []);
    if (apart === "unavailable" || generation !== this.table.generation) return "unavailable";
    const now = this.options.scheduler.now();
    const state = registration.kind.upgrade(snapshot.state, snapshot.schemaVersion);
    const cell = new ActorCell(
      key,
      registration.kind,
      state,
      stored.epoch,
      stored.revision,
      snapshot.seq,
      now,
      this.host.resultBounds,
    );
    // In the order they were written (see ResultTable), then bounded: a snapshot of an older release may
    // hold every session of the last two minutes. The records stored apart are older; the snapshot's own
    // answers come last and win (see ResultChunks).
    for (const record of apart) cell.results.restoreApart(record);
    for (const result of snapshot.results) cell.results.add(result);
    cell.results.trim(now);
    for (const timer of snapshot.timers)
      this.host.arm(cell, timer.name, timer.kind, restoredDeadline(timer, now));
    this.table.cells.set(key, cell);
    return cell;
  }

  /**
   * The records of answers a snapshot names, oldest first; "unavailable" when the store did not answer
   * (the restore is tried again later: without them a retry could be applied twice). A record that is
   * not there is reported and left out: nothing could bring it back.
   */
  private async readApart(key: string, ids: readonly string[]): Promise<ApartResults[] | "unavailable"> {
    if (ids.length === 0) return [];
    const store = this.options.store;
    const readApart = store.readApart?.bind(store);
    if (readApart === undefined) {
      this.options.events?.persistFailed?.(
        key,
        new Error(`${key}: this store cannot read answers stored apart`),
      );
      return "unavailable";
    }
    let read: (readonly SnapshotResult[] | null)[];
    try {
      read = await Promise.all(ids.map((id) => readApart(key, id)));
    } catch (error) {
      this.options.events?.persistFailed?.(key, error);
      return "unavailable";
    }
    const records: ApartResults[] = [];
    ids.forEach((id, i) => {
      const results = read[i];
      if (results) records.push({ id, results });
      else
        this.options.events?.persistFailed?.(
          key,
          new Error(`${key}: answers stored apart as ${id} are missing`),
        );
    });
    return records;
  }
}
