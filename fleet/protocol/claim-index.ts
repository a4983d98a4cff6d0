import type { Scheduler } from "../../actors/runtime/index.ts";
import type { NodeIdentity } from "./claim.ts";
import { escapeKvKey, unescapeKvKey } from "../escaped-keys.ts";
import type { KvBucket } from "../kv.ts";

/** The bucket of the claim index: one entry per (owner, key), listed by the owner's node id at its death. */
export const claimIndexBucketName = "claim-owners";

/** One entry of the index: a key its owner claimed (or was claiming). */
export interface IndexedClaim {
  readonly key: string;
  readonly owner: NodeIdentity;
}

/** Tries of an index write that failed before it is given up (the key is then found when asked for). */
const writeAttempts = 8;
const firstRetryMs = 200;
const maxRetryMs = 5_000;

/**
 * Which keys each node holds, kept beside the `claims` bucket (whose values name the owner, so listing
 * one node's keys there means reading every claim): the entry `<node>.<incarnation>.<key>` is written
 * beside each claim write of this node — sent with it, so a process that pauses or dies after sending
 * its claim has sent its entry too, and no round trip is added before an acknowledgement — and deleted
 * when the claim is. Survivors list a dead node's prefix once, instead of every node watching every
 * claim. An entry may lag (a write still retrying) or outlive its claim (a lost race, a key that moved
 * away): readers take it as a hint, read the claim, and the claim's compare-and-set decides.
 */
export class ClaimIndex {
  private stopped = false;

  constructor(
    private readonly bucket: KvBucket,
    private readonly scheduler: Scheduler,
  ) {}

  /**
   * Notes that `owner` claims `key`. Resolves once the entry landed, or its tries ran out; never rejects:
   * a claim is not refused for want of its entry. The claim write waits for it (sent at once beside the
   * claim, the entry costs no round trip unless it fails): a claim acknowledged with its entry still
   * retrying would be found by nobody if its owner died before the retry landed.
   */
  record(owner: NodeIdentity, key: string): Promise<void> {
    return this.retrying(() => this.bucket.put(entryKey(owner, key), marker), true);
  }

  /** Forgets `owner`'s entry for `key` (its claim is gone, or moved on from it). */
  remove(owner: NodeIdentity, key: string): void {
    void this.retrying(() => this.bucket.delete(entryKey(owner, key)));
  }

  /** Every entry of every incarnation of `node`, from one listing of its prefix (names only). */
  async listNode(node: string): Promise<IndexedClaim[]> {
    const keys = await this.bucket.keys(`${escapeKvKey(node)}.`);
    return keys.flatMap((raw) => {
      const parsed = parseEntryKey(raw);
      return parsed?.owner.node !== node ? [] : [parsed];
    });
  }

  /** Read through a call: a stop may come while a write or a wait is in flight. */
  private isStopped(): boolean {
    return this.stopped;
  }

  /** Stops retrying writes (the node closes). */
  stop(): void {
    this.stopped = true;
  }

  /** Runs `write`, retrying a failed one; resolves after the first try, or with `wait` after the last. */
  private async retrying(write: () => Promise<unknown>, wait = false): Promise<void> {
    try {
      await write();
    } catch {
      const retried = this.retryLater(write);
      if (wait) await retried;
    }
  }

  private async retryLater(write: () => Promise<unknown>): Promise<void> {
    let delay = firstRetryMs;
    for (let attempt = 2; !this.isStopped(); attempt++) {
      await new Promise<void>((resolve) => this.scheduler.at(this.scheduler.now() + delay, resolve));
      if (this.isStopped()) return;
      try {
        await write();
        return;
      } catch {
        if (attempt >= writeAttempts) return;
      }
      delay = Math.min(delay * 2, maxRetryMs);
    }
  }
}

/** What an entry holds: nothing but a byte (everything is in its name). */
const marker = new Uint8Array([1]);

/** The index key of `owner`'s claim of `key`: escaped, so `.` only separates the three parts. */
function entryKey(owner: NodeIdentity, key: string): string {
  return `${escapeKvKey(owner.node)}.${escapeKvKey(owner.incarnation)}.${escapeKvKey(key)}`;
}

function parseEntryKey(raw: string): IndexedClaim | null {
  const [node, incarnation, key, ...rest] = raw.split(".");
  if (node === undefined || incarnation === undefined || key === undefined || rest.length > 0) return null;
  return {
    owner: { node: unescapeKvKey(node), incarnation: unescapeKvKey(incarnation) },
    key: unescapeKvKey(key),
  };
}
