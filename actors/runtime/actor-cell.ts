import type { ActorKind, AskResult, RequestId, TimerKind } from "./types.ts";
import type { SnapshotResult } from "./ports.ts";

/** A message waiting in an actor's mailbox, with whoever waits for its answer. */
export interface Envelope {
  readonly message: unknown;
  /** Set only by the runtime's own timers: a timer message without it (or of a re-armed timer) is stale. */
  readonly timer?: ArmedTimer;
  readonly request?: RequestId;
  readonly resolve?: (result: AskResult) => void;
}

/** A timer armed in a live actor. */
export interface ArmedTimer {
  readonly kind: TimerKind;
  readonly at: number;
  readonly cancel: () => void;
}

/** One live actor: its state, its mailbox and what the runtime keeps about it. Owned by ActorSystem. */
export class ActorCell {
  readonly mailbox: Envelope[] = [];
  readonly timers = new Map<string, ArmedTimer>();
  readonly results = new Map<string, SnapshotResult>();
  running = false;
  stopped = false;
  /** Set while the store refuses writes: the mailbox waits until then. */
  pausedUntil = 0;
  /** Timers that fired in the batch being handled (their removal must be written). */
  timersFired = 0;
  /** Volatile changes not yet written: a flush is scheduled. */
  dirty = false;
  lastActive: number;

  constructor(
    readonly key: string,
    readonly kind: ActorKind<unknown, unknown>,
    public state: unknown,
    public epoch: number,
    public revision: number,
    public seq: number,
    now: number,
  ) {
    this.lastActive = now;
  }
}

/** The message of the runtime's own flush of volatile changes. */
export const flushMessage: unique symbol = Symbol("flush");

/** The results-table key of a request. */
export function requestKey(request: RequestId): string {
  return `${request.session}#${request.id}`;
}

/** The answer a stored result gives to a retry. */
export function resultToAnswer(result: SnapshotResult): AskResult {
  if (result.ok) return result.value === undefined ? { ok: true } : { ok: true, value: result.value };
  return { ok: false, code: result.code ?? "INTERNAL", message: result.message ?? "" };
}
