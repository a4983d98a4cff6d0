import type { Snapshot } from "../../actors/runtime/index.ts";

/** The snapshot kind of an orphan's tombstone: never restored, only freed. */
export const orphanKind = "$orphan";

/** The tombstone snapshot that fences an orphaned key at `epoch` (FLEET-PROTOCOL, "Orphans"). */
export function orphanTombstone(key: string, epoch: number): Snapshot {
  return {
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
}
