import { flushMessage, type ActorCell, type Envelope } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import { PersistError, type SnapshotTimer } from "./ports.ts";
import type { SnapshotMaker } from "./snapshot-maker.ts";

/** What the writes need from the system that owns the cells. */
export interface WriteHost {
  deliver(key: string, envelope: Envelope): void;
  /** The actor is gone from this node (stopped or fenced): drop it and re-route its mailbox. */
  forget(cell: ActorCell): void;
  /** The snapshot of `cell` with `state` and `timers`, under `epoch` (see SnapshotMaker). */
  snapshotOf: SnapshotMaker["snapshotOf"];
}

/** Writes a live actor's snapshot (or its removal), and schedules the later write of volatile changes. */
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
      } else {
        const snapshot = this.host.snapshotOf(cell, state, timers, cell.epoch, now);
        cell.revision = await this.options.store.write(cell.key, snapshot, cell.revision);
      }
      this.options.events?.persisted?.(cell.key, this.options.scheduler.now() - started);
      return true;
    } catch (error) {
      this.options.events?.persistFailed?.(cell.key, error);
      if (error instanceof PersistError && error.failure === "fenced") this.host.forget(cell);
      return false;
    }
  }
}
