import type { Scheduler } from "./ports.ts";

interface Pending {
  readonly at: number;
  readonly order: number;
  readonly fn: () => void;
}

/**
 * A scheduler on a fake clock, for tests and simulations: time moves only when `advance` is called, and
 * timers fire in deadline order, each after the work the previous one started has settled.
 */
export class ManualScheduler implements Scheduler {
  private current: number;
  private order = 0;
  private pending: Pending[] = [];

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  at(at: number, fn: () => void): () => void {
    const entry = { at, order: this.order++, fn };
    this.pending.push(entry);
    return () => {
      this.pending = this.pending.filter((p) => p !== entry);
    };
  }

  /** Moves the clock forward by `ms`, firing every timer that falls due, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      await settle();
      const next = this.nextDue(target);
      if (!next) break;
      this.pending = this.pending.filter((p) => p !== next);
      this.current = Math.max(this.current, next.at);
      next.fn();
    }
    this.current = target;
    await settle();
  }

  /** Number of timers waiting. */
  get size(): number {
    return this.pending.length;
  }

  private nextDue(target: number): Pending | undefined {
    let best: Pending | undefined;
    for (const p of this.pending) {
      if (p.at > target) continue;
      if (!best || p.at < best.at || (p.at === best.at && p.order < best.order)) best = p;
    }
    return best;
  }
}

/** Lets every queued promise continuation run (several macrotask turns, so chained awaits finish). */
export async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) {
    await new Promise<void>((resolve) => {
      queueMicrotask(resolve);
    });
    await Promise.resolve();
  }
}
