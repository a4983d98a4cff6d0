import type { AskResult, BlobStore } from "../../actors/runtime/index.ts";
import type { Logger } from "pino";

/**
 * The sweep of orphaned room documents (docs/rooms.md "Large blobs"). A room deletes its blob when it
 * stops, and a node deletes an upload nobody claimed after `blobUploadTimeoutMs`; both are lost when the
 * node is killed at the wrong moment. So every node, every `everyMs`, deletes the blobs older than
 * `olderThanMs` that no room holds, or whose room no longer exists (a key that is gone answers
 * NOT_FOUND). Every node sweeps the one bucket of a fleet: a blob deleted twice is deleted.
 */

/** How often a node sweeps, and how old a blob must be before it may go (well past the upload timeout). */
export const blobSweepTiming = { everyMs: 10 * 60_000, olderThanMs: 30 * 60_000 } as const;

/**
 * Whether the holder of a blob still exists: a room answers its `status`; only a clear NOT_FOUND counts
 * as gone — a key being taken over, a timeout or a holder of another kind keeps its blob.
 */
export function holderInUse(
  ask: (key: string, message: unknown) => Promise<AskResult>,
): (holder: string) => Promise<boolean> {
  return async (holder) => {
    if (!holder.startsWith("room/")) return true;
    const answer = await ask(holder, { type: "status" });
    return answer.ok || answer.code !== "NOT_FOUND";
  };
}

/** Starts the periodic sweep; returns its stop. */
export function startBlobSweep(
  store: BlobStore,
  ask: (key: string, message: unknown) => Promise<AskResult>,
  log: Logger,
  timing: { everyMs: number; olderThanMs: number } = blobSweepTiming,
): () => void {
  const inUse = holderInUse(ask);
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    store
      .sweep({ olderThanMs: timing.olderThanMs, inUse })
      .then(
        (swept) => {
          if (swept.length > 0) log.info({ swept: swept.length }, "orphaned blobs deleted");
        },
        (error: unknown) => {
          log.warn({ err: error }, "blob sweep failed; tried again next round");
        },
      )
      .finally(() => {
        running = false;
      });
  }, timing.everyMs);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
