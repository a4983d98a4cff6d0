import { NatsKvStore, connectNats, decodeSnapshot, type KvWatch } from "../../fleet/index.ts";
import type { SnapshotWrite } from "./chaos-journal.ts";

/** A running watch of the `lobbies` bucket. */
export interface SnapshotHistory {
  stop(): Promise<void>;
}

/**
 * Watches every snapshot write to the `lobbies` bucket (history first, then live; the store's watch
 * resumes after a reconnect from the last revision it saw), noting each one's epoch and sequence, so the
 * audit can see whether an older owner wrote after a newer one.
 */
export async function watchSnapshots(
  natsUrls: readonly string[],
  replicas: number,
  onWrite: (write: SnapshotWrite) => void,
): Promise<SnapshotHistory> {
  const nc = await connectNats({ servers: natsUrls, name: "foyer-chaos-audit" });
  const store = new NatsKvStore(nc, { replicas });
  try {
    const bucket = await store.bucket("lobbies");
    const watch: KvWatch = bucket.watch({ prefix: "lobby/", fromRevision: 1 }, (entry) => {
      let epoch: number | null = null;
      let seq: number | null = null;
      if (entry.operation === "PUT") {
        try {
          const snapshot = decodeSnapshot(entry.value);
          epoch = snapshot.epoch;
          seq = snapshot.seq;
        } catch {
          // a tombstone of an orphaned create: not a snapshot, starts the key afresh like a delete
        }
      }
      onWrite({ key: entry.key, revision: entry.revision, epoch, seq });
    });
    return {
      async stop() {
        watch.stop();
        await store.close();
        await nc.close();
      },
    };
  } catch (error) {
    await store.close();
    await nc.close();
    throw error;
  }
}
