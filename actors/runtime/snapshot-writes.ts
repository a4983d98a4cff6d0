import { flushMessage, type ActorCell, type Envelope } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import { PersistError, type SnapshotTimer } from "./ports.ts";
import type { ApartResults } from "./result-chunks.ts";
import type { SnapshotMaker } from "./snapshot-maker.ts";

/** What the writes need from the system that owns the cells. */
export interface WriteHost {
  deliver(key: string, envelope: Envelope): void;
  /** The actor is gone from this node (stopped or fenced): drop it and re-route its mailbox. */
  forget(cell: ActorCell): void;
  /** The snapshot of `cell` with `state` and `timers`, under `epoch` (see SnapshotMaker). */
  snapshotOf: SnapshotMaker["snapshotOf"];
  /** A new id, unique across processes (see SnapshotMaker). */
  newWriteId: SnapshotMaker["newWriteId"];
}

/**
 * Writes a live actor's snapshot (or its removal), and schedules the later write of volatile changes.
 *
 * The answers of sessions the actor has not answered lately are stored apart from the snapshot (see
 * ResultChunks): each settled chunk is written under a record of its own before the snapshot that names
 * it instead of carrying it, so every answer is durable before and after, and an op's write carries only
 * recent answers. A record no longer named is deleted once a snapshot without it is written; the
 * actor's removal deletes them all.
 */
export class SnapshotWrites {
  constructor(
    private readonly options: ActorSystemOptions,
    private readonly host: WriteHost,
  ) {}

  /** Schedules the write of volatile changes, once per dirty period. */
  markDirty(cell: ActorCell, now: number): void {
    if (cell.dirty) return;
    cell.dirty = true;
    this.options.scheduler.at(now + (this.options.volatileFlushMs ?? 3_000), () => {
      if (cell.dirty && !cell.stopped) this.host.deliver(cell.key, { message: flushMessage });
    });
  }

  /** Writes `state` with `timers` (or removes the actor when `stopping`); false when the store refused. */
  async persist(
    cell: ActorCell,
    state: unknown,
    timers: readonly SnapshotTimer[],
    now: number,
    stopping: boolean,
  ): Promise<boolean> {
    const started = this.options.scheduler.now();
    try {
      if (stopping) {
        await this.options.store.remove(cell.key, cell.revision, cell.epoch);
        this.removeApart(cell.key, [...cell.results.apartIds(), ...cell.results.takeReleased()]);
      } else {
        const settling = this.options.store.writeApart
          ? cell.results.settle(() => this.host.newWriteId(now))
          : [];
        // Most writes settle nothing, and then wait for nothing more than their snapshot.
        if (settling.length > 0) await this.writeSettled(cell, settling);
        const released = cell.results.takeReleased();
        const snapshot = this.host.snapshotOf(cell, state, timers, cell.epoch, now);
        try {
          cell.revision = await this.options.store.write(cell.key, snapshot, cell.revision);
        } catch (error) {
          cell.results.returnReleased(released);
          throw error;
        }
        this.removeApart(cell.key, released);
      }
      this.options.events?.persisted?.(cell.key, this.options.scheduler.now() - started);
      return true;
    } catch (error) {
      this.options.events?.persistFailed?.(cell.key, error);
      if (error instanceof PersistError && error.failure === "fenced") this.host.forget(cell);
      return false;
    }
  }

  /**
   * Writes the records of the chunks that settled since the last write. One that fails leaves its
   * answers in the snapshot (and is released, in case it landed).
   */
  private async writeSettled(cell: ActorCell, settling: readonly ApartResults[]): Promise<void> {
    const store = this.options.store;
    const writeApart = store.writeApart?.bind(store);
    if (writeApart === undefined) return;
    const written = await Promise.allSettled(
      settling.map((record) => writeApart(cell.key, record.id, record.results)),
    );
    const failed = settling.filter((_, i) => written[i]?.status === "rejected").map((record) => record.id);
    if (failed.length === 0) return;
    this.options.events?.persistFailed?.(
      cell.key,
      new Error(`${failed.length} record(s) of settled answers not written; kept in the snapshot`),
    );
    cell.results.unsettle(failed);
  }

  /** Deletes records of answers no snapshot of `key` names any more; best effort (a leftover is small). */
  private removeApart(key: string, ids: readonly string[]): void {
    const store = this.options.store;
    if (ids.length === 0 || store.removeApart === undefined) return;
    for (const id of ids) {
      store.removeApart(key, id).catch((error: unknown) => {
        this.options.events?.persistFailed?.(key, error);
      });
    }
  }
}
