import type { KvEntry as NatsKvEntry, QueuedIterator } from "nats";
import type { KvEntry, KvWatch } from "../kv.ts";
import type { HandlerErrorSink } from "../handler-error.ts";

/** Opens a nats.js watch: from `revision` on, or (undefined) the latest entry of each key first. */
export type OpenNatsWatch = (revision: number | undefined) => Promise<QueuedIterator<NatsKvEntry>>;

/** What a NatsKvWatch is made of. */
export interface NatsKvWatchOptions {
  readonly open: OpenNatsWatch;
  /** Only keys starting with this are delivered (the server filters on whole `.`-tokens only). */
  readonly prefix: string;
  readonly fromRevision: number | undefined;
  readonly onEntry: (entry: KvEntry) => void;
  readonly onHandlerError: HandlerErrorSink;
  /** Called once when the watch stops. */
  readonly onStop: () => void;
}

const firstRetryMs = 20;
const maxRetryMs = 1_000;

/**
 * A KV watch that survives its server: nats.js's watch (an ordered consumer) can go silent for 5–23 s
 * when its server dies (NATS-NOTES, "Failures measured"), so the store calls `reopen()` on every reconnect
 * and the watch is made again from `lastSeen + 1`, retrying until it is made. Entries are deduplicated by
 * revision, so a reopen never delivers one twice or out of order.
 */
export class NatsKvWatch implements KvWatch {
  private stopped = false;
  /** The highest revision received (delivered or filtered out by prefix). */
  private lastSeen = 0;
  /** Bumped by reopen(): an iterator opened under an older generation is dropped. */
  private generation = 0;
  private iterator: QueuedIterator<NatsKvEntry> | undefined;
  private wake: (() => void) | undefined;

  constructor(private readonly options: NatsKvWatchOptions) {
    void this.run();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.iterator?.stop();
    this.wake?.();
    this.options.onStop();
  }

  /** Drops the current consumer and makes a new one from the last revision seen. */
  reopen(): void {
    if (this.stopped) return;
    this.generation += 1;
    this.iterator?.stop();
    this.wake?.();
  }

  private async run(): Promise<void> {
    let retryMs = firstRetryMs;
    while (!this.isStopped()) {
      const generation = this.generation;
      try {
        const resumeAt = this.lastSeen > 0 ? this.lastSeen + 1 : this.options.fromRevision;
        const iterator = await this.options.open(resumeAt);
        if (this.isStopped() || generation !== this.generation) {
          iterator.stop();
          continue;
        }
        this.iterator = iterator;
        retryMs = firstRetryMs;
        for await (const entry of iterator) {
          if (this.isStopped()) break;
          this.take(entry);
        }
      } catch {
        // A watch that cannot be made now (no leader, timeout, reconnecting) is retried below.
      }
      this.iterator = undefined;
      if (!this.isStopped() && generation === this.generation) {
        await this.pause(retryMs);
        retryMs = Math.min(retryMs * 2, maxRetryMs);
      }
    }
  }

  /** A method, not a field read, so the compiler does not assume it unchanged across awaits. */
  private isStopped(): boolean {
    return this.stopped;
  }

  private take(entry: NatsKvEntry): void {
    if (entry.revision <= this.lastSeen) return;
    this.lastSeen = entry.revision;
    if (!entry.key.startsWith(this.options.prefix)) return;
    try {
      this.options.onEntry({
        key: entry.key,
        value: new Uint8Array(entry.value),
        revision: entry.revision,
        operation: entry.operation === "PUT" ? "PUT" : "DEL",
      });
    } catch (error) {
      this.options.onHandlerError(error);
    }
  }

  /** Waits before a retry; stop() and reopen() cut the wait short. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }
}
