import type { KvStore } from "../../fleet/index.ts";
import { viewWrites, type KvWriteCall } from "./kv-write-view.ts";

/** One KV write a node made: which bucket, which call, and when it started and returned (performance.now ms). */
export interface KvWrite {
  readonly bucket: string;
  readonly call: KvWriteCall;
  readonly key: string;
  readonly startedMs: number;
  endedMs: number;
}

/**
 * Every KV write made through the stores it wraps, with its timing: the cluster bench wraps each node's
 * NATS KV store in it to count the writes an op causes and how many of them it waited for in sequence.
 * Reads and watches pass through uncounted.
 */
export class KvWriteLog {
  readonly writes: KvWrite[] = [];
  /**
   * Writes are logged only while this is set (the counting phase): the timed phases' ops then pay for
   * no log, as the floors' writes, which go to an unwrapped store, do not.
   */
  counting = false;
  private inFlight = 0;

  /** The store `kv` with every bucket it opens counted here. */
  wrap(kv: KvStore): KvStore {
    return viewWrites(kv, (bucket, call, key, write) =>
      this.counting ? this.record({ bucket, call, key }, write) : write(),
    );
  }

  /** Resolves once no write has been in flight for `quietMs`: the writes an op set off are all logged. */
  async settled(quietMs = 30): Promise<void> {
    let seen = -1;
    while (this.inFlight > 0 || seen !== this.writes.length) {
      seen = this.writes.length;
      await new Promise((resolve) => setTimeout(resolve, quietMs));
    }
  }

  private async record<T>(
    what: Pick<KvWrite, "bucket" | "call" | "key">,
    write: () => Promise<T>,
  ): Promise<T> {
    const entry: KvWrite = { ...what, startedMs: performance.now(), endedMs: Number.NaN };
    this.writes.push(entry);
    this.inFlight += 1;
    try {
      return await write();
    } finally {
      entry.endedMs = performance.now();
      this.inFlight -= 1;
    }
  }
}

/**
 * How many of `writes` follow one another, each starting after the previous returned: the longest such
 * chain (greedy by end time). That many KV round trips at least lie between an op's start and its answer.
 */
export function writesInSequence(writes: readonly KvWrite[]): number {
  const byEnd = [...writes].sort((a, b) => a.endedMs - b.endedMs);
  let chain = 0;
  let lastEnd = Number.NEGATIVE_INFINITY;
  for (const write of byEnd) {
    if (write.startedMs >= lastEnd) {
      chain += 1;
      lastEnd = write.endedMs;
    }
  }
  return chain;
}
