import type { ActorCell } from "./actor-cell.ts";
import type { Snapshot, SnapshotTimer } from "./ports.ts";
import type { Random } from "./types.ts";

/** Builds the snapshots a live actor writes, each with a write id of its own. */
export class SnapshotMaker {
  private writeCounter = 0;

  constructor(private readonly random: Random) {}

  /** A write id no other write of this process (nor, by its random part, of another) has. */
  newWriteId(now: number): string {
    this.writeCounter++;
    return `${now.toString(36)}-${this.writeCounter.toString(36)}-${this.random.int(2 ** 31).toString(36)}`;
  }

  /**
   * The snapshot of `cell` with `state` and `timers`, under `epoch`: the answers of its result table
   * that are not stored apart, and the ids of the records that are (then in format 2).
   */
  snapshotOf(
    cell: ActorCell,
    state: unknown,
    timers: readonly SnapshotTimer[],
    epoch: number,
    now: number,
  ): Snapshot {
    const writeId = this.newWriteId(now);
    const apart = cell.results.apartIds();
    return {
      format: apart.length > 0 ? 2 : 1,
      kind: cell.kind.kind,
      schemaVersion: cell.kind.schemaVersion,
      key: cell.key,
      epoch,
      seq: cell.seq,
      writeId,
      state: cell.kind.stored ? cell.kind.stored(state) : state,
      timers,
      results: cell.results.list(),
      ...(apart.length > 0 ? { apart } : {}),
      ...(cell.spawning.length > 0 ? { spawning: cell.spawning } : {}),
    };
  }
}
