import { FoyerError } from "../protocol/foyer-error.ts";
import type { RequestFrame } from "../protocol/client-frames.ts";
import type { ErrorFrame } from "../protocol/server-frames.ts";

interface Pending {
  readonly frame: RequestFrame;
  /** Copies of the frame that went out on an open socket. */
  sent: number;
  /** Answers heard for it (results and error frames): each accounts for one copy. */
  answered: number;
  readonly deadline: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: FoyerError) => void;
  deadlineTimer?: ReturnType<typeof setTimeout>;
  retryTimer?: ReturnType<typeof setTimeout> | undefined;
}

/** The wait before re-sending a retryable refusal that named none (nodes always name one). */
const fallbackRetryMs = 100;

/**
 * How long a call stays out of the ack after it settles when more than one copy of it went out and not
 * every copy was answered: an unanswered one may still be on its way through another node (forwarded by
 * a node the client moved away from), and only the stored result keeps it from being applied again.
 * Nodes keep results this long by default (docs/protocol.md).
 */
export const resentHoldMs = 120_000;

/**
 * The SDK's unanswered calls. Each keeps its frame, id included, until a result, a final error or its
 * deadline settles it; until then it is re-sent after every welcome and after each retryable refusal, so
 * the node (which applies an id once) sees the same request again, never a new one.
 */
export class PendingCalls {
  private readonly calls = new Map<number, Pending>();
  /** Settled calls with a copy that may still be on its way, with when they may be acknowledged. */
  private readonly held = new Map<number, number>();

  /** `send` transmits a frame when the client is connected (and says so) and drops it otherwise. */
  constructor(private readonly send: (frame: RequestFrame) => boolean) {}

  /** Sends a call and resolves with its result; rejects with its final error or TIMEOUT. */
  add(frame: RequestFrame, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const entry: Pending = {
        frame,
        sent: 0,
        answered: 0,
        deadline: Date.now() + timeoutMs,
        resolve,
        reject,
      };
      this.calls.set(frame.id, entry);
      entry.deadlineTimer = setTimeout(() => {
        this.finish(frame.id, new FoyerError("TIMEOUT", `${frame.type} was not answered in ${timeoutMs} ms`));
      }, timeoutMs);
      this.transmit(entry);
    });
  }

  /** The deadline (epoch ms) of the unsettled call due first, or undefined when none is. */
  firstDeadline(): number | undefined {
    let first: number | undefined;
    for (const entry of this.calls.values())
      if (first === undefined || entry.deadline < first) first = entry.deadline;
    return first;
  }

  /** A result answered a call; a call already settled is ignored. */
  settle(id: number, outcome: { value: unknown }): void {
    const entry = this.calls.get(id);
    if (entry) entry.answered++;
    this.finish(id, outcome);
  }

  /** Settles a call with its result or error; a call already settled is ignored. */
  private finish(id: number, outcome: FoyerError | { value: unknown }): void {
    const entry = this.calls.get(id);
    if (!entry) return;
    this.calls.delete(id);
    clearTimeout(entry.deadlineTimer);
    clearTimeout(entry.retryTimer);
    if (entry.sent > 1 && entry.answered < entry.sent) this.held.set(id, Date.now() + resentHoldMs);
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
    entry.answered++;
    const error = new FoyerError(frame.code, frame.message, frame.retryAfterMs);
    const wait = frame.retryAfterMs ?? fallbackRetryMs;
    if (!error.retryable || Date.now() + wait >= entry.deadline) {
      this.finish(id, error);
      return;
    }
    clearTimeout(entry.retryTimer);
    entry.retryTimer = setTimeout(() => {
      entry.retryTimer = undefined;
      if (this.calls.get(id) === entry) this.transmit(entry);
    }, wait);
  }

  /** After a welcome: re-sends every unanswered call, in id order (this is also their retry). */
  resendAll(): void {
    for (const entry of [...this.calls.values()].sort((a, b) => a.frame.id - b.frame.id)) {
      clearTimeout(entry.retryTimer);
      entry.retryTimer = undefined;
      this.transmit(entry);
    }
  }

  private transmit(entry: Pending): void {
    if (this.send(entry.frame)) entry.sent++;
  }

  /** Fails every unanswered call (the client closed, or the connection ended for good). */
  failAll(error: FoyerError): void {
    for (const id of [...this.calls.keys()]) this.finish(id, error);
  }

  /**
   * The highest id up to which no copy of any call can still reach a node, for a new call `id` (ids
   * count up): one below the oldest call still unsettled or still held (more than one copy went out, not
   * all were answered, and it settled less than `resentHoldMs` ago), else `id - 1`. A settled call is
   * never sent again, answered or not.
   */
  settledThrough(id: number): number {
    let lowest = id;
    for (const oldest of this.calls.keys()) {
      lowest = Math.min(lowest, oldest);
      break;
    }
    const now = Date.now();
    for (const [held, until] of this.held) {
      if (until <= now) this.held.delete(held);
      else lowest = Math.min(lowest, held);
    }
    return lowest - 1;
  }

  /** Number of unanswered calls. */
  get size(): number {
    return this.calls.size;
  }
}
