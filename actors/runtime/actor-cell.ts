import type { ActorKind, AskResult, RequestId, TimerKind } from "./types.ts";
import type { SnapshotResult, SnapshotSpawn } from "./ports.ts";
import { ResultTable, type ResultBounds } from "./request-results.ts";

/** A message waiting in an actor's mailbox, with whoever waits for its answer. */
export interface Envelope {
  readonly message: unknown;
  /** Set only by the runtime's own timers: a timer message without it (or of a re-armed timer) is stale. */
  readonly timer?: ArmedTimer;
  readonly request?: RequestId;
  readonly resolve?: (result: AskResult) => void;
  /** Set on a message sent again after a remote owner answered `MOVED`: a second `MOVED` is final. */
  readonly rerouted?: boolean;
}

/** A timer armed in a live actor. */
export interface ArmedTimer {
  readonly kind: TimerKind;
  readonly at: number;
  readonly cancel: () => void;
}

/** The timers of every cell that has none armed: most cells (a seated player's entry) never arm one. */
const noTimers: ReadonlyMap<string, ArmedTimer> = new Map();

/** One live actor: its state, its mailbox and what the runtime keeps about it. Owned by ActorSystem. */
export class ActorCell {
  readonly mailbox: Envelope[] = [];
  /** Made when the first timer is armed and let go with the last one (an empty Map holds 150 B). */
  private armed: Map<string, ArmedTimer> | undefined;
  /** The answers kept for retries (see ResultTable). */
  readonly results: ResultTable;
  running = false;
  stopped = false;
  /** Set while the store refuses writes: the mailbox waits until then. */
  pausedUntil = 0;
  /** Volatile changes not yet written: a flush is scheduled. */
  dirty = false;
  /** Being handed to another node: the mailbox is kept (the migration's buffer), not run. */
  frozen = false;
  /** While frozen: asks past this many buffered messages are refused UNAVAILABLE. */
  maxBuffered = 256;
  /**
   * The spawns of the batch in flight, written with its snapshot until their actors are stored (see
   * MailboxRunner, "Spawns before what they cause"); empty otherwise.
   */
  spawning: readonly SnapshotSpawn[] = [];
  /** Called once the batch in flight (if any) has finished. */
  idleWaiters: (() => void)[] = [];
  lastActive: number;
  /**
   * The sequence number the latest events were stamped with. Events take the number of the last frame of
   * their change; a change with events and no frame after the last events takes a number of its own, so
   * (epoch, seq, index) names one event. A restored cell assumes its last number was an event's.
   */
  eventSeq: number;

  constructor(
    readonly key: string,
    readonly kind: ActorKind<unknown, unknown>,
    public state: unknown,
    public epoch: number,
    public revision: number,
    public seq: number,
    now: number,
    bounds: ResultBounds,
  ) {
    this.results = new ResultTable(bounds);
    this.lastActive = now;
    this.eventSeq = seq;
  }

  /** The armed timers, by name. */
  get timers(): ReadonlyMap<string, ArmedTimer> {
    return this.armed ?? noTimers;
  }

  /** Keeps `timer` as the one armed under `name`, in place of any before it. */
  setTimer(name: string, timer: ArmedTimer): void {
    (this.armed ??= new Map()).set(name, timer);
  }

  /** Forgets the timer armed under `name` (cancelling it is the caller's). */
  deleteTimer(name: string): void {
    this.armed?.delete(name);
    if (this.armed?.size === 0) this.armed = undefined;
  }

  /** Cancels and forgets every armed timer. */
  cancelTimers(): void {
    for (const timer of this.timers.values()) timer.cancel();
    this.armed = undefined;
  }
}

/** The message of the runtime's own flush of volatile changes. */
export const flushMessage: unique symbol = Symbol("flush");

/** What one batch changed besides the state, so a failed write can be undone exactly. */
export interface BatchBookkeeping {
  /** Timers that fired in the batch, by name: forgotten only once the batch is written. */
  readonly fired: Map<string, ArmedTimer>;
  /**
   * Timers an earlier message of the batch cancelled or re-armed, by name: the armed timer they replace
   * is only swapped once the batch is written, so a firing of it later in the same batch is stale.
   */
  readonly touched: Set<string>;
  /** Requests whose results the batch added: removed again if the write fails. */
  readonly added: RequestId[];
  /** Results the batch's trim dropped: put back if the write fails. */
  dropped: readonly SnapshotResult[];
  /** Results the batch's requests said their clients will never ask for again: put back if the write fails. */
  readonly acknowledged: SnapshotResult[];
}
