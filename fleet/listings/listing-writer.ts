import type { Scheduler } from "../../actors/runtime/index.ts";
import type { KvBucket } from "../kv.ts";
import { encodeListingRecord } from "./listing-record.ts";
import type { ListedLobby } from "./query-order.ts";

/** What the writer is made of. */
export interface ListingWriterOptions {
  readonly bucket: KvBucket;
  /** This node's id, written into each entry. */
  readonly node: string;
  readonly scheduler: Scheduler;
  /** Writes at once; more wait, each code's latest change only. 64 by default. */
  readonly maxInFlight?: number;
  /** A failed write is tried again this much later (its code's latest change then). 500 by default. */
  readonly retryMs?: number;
  /** A write failed (it is tried again). */
  readonly failed?: (code: string, error: unknown) => void;
}

/**
 * Writes the public lobbies' listings of this node's lobbies into the `listings` bucket, after the lobby's
 * own snapshot was written (the tell that carries a listing is an effect of a written batch). Per code,
 * one write is in flight at a time and only the latest change waits behind it: a lobby that changes ten
 * times while its entry is being written costs two writes, and entries are written in the order of the
 * changes, so the last one stays.
 */
export class ListingWriter {
  private readonly pending = new Map<string, ListedLobby | null>();
  private readonly writing = new Set<string>();
  private readonly waiters: (() => void)[] = [];
  private closed = false;

  constructor(private readonly options: ListingWriterOptions) {}

  /** A lobby's line, new or changed. */
  list(line: ListedLobby): void {
    this.enqueue(line.code, line);
  }

  /** A lobby that closed (or turned private). */
  unlist(code: string): void {
    this.enqueue(code, null);
  }

  /** Resolves once nothing waits or is being written (tests and the bench). */
  settled(): Promise<void> {
    if (this.pending.size === 0 && this.writing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    this.closed = true;
  }

  private enqueue(code: string, line: ListedLobby | null): void {
    if (this.closed) return;
    this.pending.set(code, line);
    this.pump();
  }

  private pump(): void {
    const max = this.options.maxInFlight ?? 64;
    for (const [code, line] of this.pending) {
      if (this.writing.size >= max) return;
      if (this.writing.has(code)) continue;
      this.pending.delete(code);
      this.writing.add(code);
      void this.write(code, line);
    }
    if (this.pending.size === 0 && this.writing.size === 0)
      this.waiters.splice(0).forEach((w) => {
        w();
      });
  }

  private async write(code: string, line: ListedLobby | null): Promise<void> {
    const { bucket, node } = this.options;
    try {
      if (line === null) await bucket.delete(code);
      else await bucket.put(code, encodeListingRecord({ line, node }));
    } catch (error) {
      this.options.failed?.(code, error);
      this.retryLater(code, line);
    } finally {
      this.writing.delete(code);
      this.pump();
    }
  }

  /** Puts a failed change back, unless a newer one for its code already waits. */
  private retryLater(code: string, line: ListedLobby | null): void {
    const { scheduler } = this.options;
    scheduler.at(scheduler.now() + (this.options.retryMs ?? 500), () => {
      if (!this.pending.has(code) && !this.writing.has(code)) this.enqueue(code, line);
    });
  }
}
