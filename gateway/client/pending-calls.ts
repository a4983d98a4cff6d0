import { FoyerError } from "../foyer-error.ts";
import type { RequestFrame } from "../protocol/client-frames.ts";
import type { ErrorFrame } from "../protocol/server-frames.ts";

interface Pending {
  readonly frame: RequestFrame;
  readonly deadline: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: FoyerError) => void;
  deadlineTimer?: ReturnType<typeof setTimeout>;
  retryTimer?: ReturnType<typeof setTimeout> | undefined;
}

/** The wait before re-sending a retryable refusal that named none (nodes always name one). */
const fallbackRetryMs = 100;

/**
 * The SDK's unanswered calls. Each keeps its frame, id included, until a result, a final error or its
 * deadline settles it; until then it is re-sent after every welcome and after each retryable refusal, so
 * the node (which applies an id once) sees the same request again, never a new one.
 */
export class PendingCalls {
  private readonly calls = new Map<number, Pending>();

  /** `send` transmits a frame when the client is connected and drops it otherwise. */
  constructor(private readonly send: (frame: RequestFrame) => void) {}

  /** Sends a call and resolves with its result; rejects with its final error or TIMEOUT. */
  add(frame: RequestFrame, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const entry: Pending = { frame, deadline: Date.now() + timeoutMs, resolve, reject };
      this.calls.set(frame.id, entry);
      entry.deadlineTimer = setTimeout(() => {
        this.settle(frame.id, new FoyerError("TIMEOUT", `${frame.type} was not answered in ${timeoutMs} ms`));
      }, timeoutMs);
      this.send(frame);
    });
  }

  /** Settles a call with its result or error; a call already settled is ignored. */
  settle(id: number, outcome: FoyerError | { value: unknown }): void {
    const entry = this.calls.get(id);
    if (!entry) return;
    this.calls.delete(id);
    clearTimeout(entry.deadlineTimer);
    clearTimeout(entry.retryTimer);
    if (outcome instanceof FoyerError) entry.reject(outcome);
    else entry.resolve(outcome.value);
  }

  /**
   * An error frame answered a call. A final code settles it, so it is never sent again; a retryable one
   * is re-sent with the same id after `retryAfterMs`, unless that would pass the call's deadline.
   */
  refused(frame: ErrorFrame): void {
    if (frame.id === undefined) return;
    const id = frame.id;
    const entry = this.calls.get(id);
    if (!entry) return;
    const error = new FoyerError(frame.code, frame.message, frame.retryAfterMs);
    const wait = frame.retryAfterMs ?? fallbackRetryMs;
    if (!error.retryable || Date.now() + wait >= entry.deadline) {
      this.settle(id, error);
      return;
    }
    clearTimeout(entry.retryTimer);
    entry.retryTimer = setTimeout(() => {
      entry.retryTimer = undefined;
      if (this.calls.get(id) === entry) this.send(entry.frame);
    }, wait);
  }

  /** After a welcome: re-sends every unanswered call, in id order (this is also their retry). */
  resendAll(): void {
    for (const entry of [...this.calls.values()].sort((a, b) => a.frame.id - b.frame.id)) {
      clearTimeout(entry.retryTimer);
      entry.retryTimer = undefined;
      this.send(entry.frame);
    }
  }

  /** Fails every unanswered call (the client closed, or the connection ended for good). */
  failAll(error: FoyerError): void {
    for (const id of [...this.calls.keys()]) this.settle(id, error);
  }

  /**
   * The highest id up to which every call is settled, for a new call `id` (ids count up): one below the
   * oldest call still unsettled, else `id - 1`. A settled call is never sent again, answered or not.
   */
  settledThrough(id: number): number {
    for (const oldest of this.calls.keys()) return Math.min(oldest, id) - 1;
    return id - 1;
  }

  /** Number of unanswered calls. */
  get size(): number {
    return this.calls.size;
  }
}
