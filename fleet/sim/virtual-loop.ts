import type { Scheduler } from "../../actors/runtime/index.ts";

/** A simulated process as the loop sees it: its events are dropped once it stopped and held while it is paused. */
export interface SimHost {
  /** Crashed (or replaced by a restart): its timers and in-flight continuations never run again. */
  stopped: boolean;
  /** Virtual ms until which it is frozen (SIGSTOP): its events wait until then, in their order. */
  pausedUntil: number;
}

interface SimEvent {
  at: number;
  seq: number;
  readonly host: SimHost | undefined;
  readonly run: () => void;
  cancelled: boolean;
}

/**
 * The simulation's one clock and event queue. Events run one at a time in (time, order) order; after
 * each one every promise continuation it caused runs before the next event, so the fleet code's `await`s
 * interleave the same way on every run of a seed. No real timer decides anything.
 */
export class VirtualLoop {
  private current = 0;
  private seq = 0;
  private readonly heap: SimEvent[] = [];

  /** Virtual ms since the start of the world. */
  get now(): number {
    return this.current;
  }

  /** Runs `run` at virtual time `at` (not before now), for `host` when given; returns a cancel function. */
  schedule(at: number, run: () => void, host?: SimHost): () => void {
    const event: SimEvent = { at: Math.max(at, this.current), seq: this.seq++, host, run, cancelled: false };
    this.push(event);
    return () => {
      event.cancelled = true;
    };
  }

  /** Runs every event due up to `end`, then leaves the clock at `end`. */
  async runUntil(end: number): Promise<void> {
    await drainContinuations();
    for (;;) {
      const next = this.heap[0];
      if (next === undefined || next.at > end) break;
      this.pop();
      if (next.cancelled || next.host?.stopped === true) continue;
      if (next.host !== undefined && next.at < next.host.pausedUntil) {
        next.at = next.host.pausedUntil;
        next.seq = this.seq++;
        this.push(next);
        continue;
      }
      this.current = next.at;
      next.run();
      await drainContinuations();
    }
    this.current = Math.max(this.current, end);
  }

  private push(event: SimEvent): void {
    const heap = this.heap;
    heap.push(event);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(event, this.item(parent))) break;
      heap[i] = this.item(parent);
      i = parent;
    }
    heap[i] = event;
  }

  private item(i: number): SimEvent {
    const event = this.heap[i];
    if (event === undefined) throw new RangeError(`no event at ${i}`);
    return event;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(this.item(right), this.item(left)) ? right : left;
      if (!before(this.item(child), last)) break;
      heap[i] = this.item(child);
      i = child;
    }
    heap[i] = last;
  }
}

function before(a: SimEvent, b: SimEvent): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** Node runs every queued microtask before the next macrotask: one turn settles all the work an event started. */
function drainContinuations(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(resolve);
  });
}

/**
 * One machine's clocks: a monotonic clock that runs with virtual time, and a wall clock that may be skewed
 * and may jump (NTP step, VM resume).
 */
export class NodeClock {
  private wallOffset: number;
  /** Windows of virtual time in which both clocks stood still (`stall`). */
  private readonly stalls: { from: number; until: number }[] = [];

  constructor(
    private readonly loop: VirtualLoop,
    wallStart: number,
    private readonly monoStart: number,
  ) {
    this.wallOffset = wallStart;
  }

  wall(): number {
    return this.loop.now + this.wallOffset - this.stalled();
  }

  monotonic(): number {
    return this.loop.now + this.monoStart - this.stalled();
  }

  /**
   * Stops both clocks from `from` to `until`: a machine whose wall clock stops with its monotonic one
   * during a suspend, which the lease check cannot see through (a broken variant; a real wall clock runs on).
   */
  stall(from: number, until: number): void {
    this.stalls.push({ from, until });
  }

  private stalled(): number {
    let ms = 0;
    for (const { from, until } of this.stalls) ms += Math.max(0, Math.min(this.loop.now, until) - from);
    return ms;
  }

  /** Steps the wall clock by `ms` (either way); the monotonic clock does not move. */
  jump(ms: number): void {
    this.wallOffset += ms;
  }

  /**
   * A process's Scheduler on this machine: like realScheduler, a deadline is armed as a delay on the
   * monotonic clock and re-armed if the wall clock has not reached it when it fires. A deadline already
   * past fires as the next event, never inside `at` itself (as a real timer of 0 ms): a caller may arm a
   * timer before it sets up what the timer reads.
   */
  scheduler(host: SimHost): Scheduler {
    return {
      now: () => this.wall(),
      at: (at, fn) => {
        let cancel: (() => void) | undefined;
        const arm = (): void => {
          const delay = at - this.wall();
          cancel = this.loop.schedule(this.loop.now + Math.max(delay, 0), delay <= 0 ? fn : arm, host);
        };
        arm();
        return () => cancel?.();
      },
    };
  }
}
