import type { Scheduler } from "../../actors/runtime/index.ts";
import type { KvEntry } from "../kv.ts";

/** What ClaimWaiters needs from the router it serves. */
export interface ClaimWaitersOptions {
  readonly scheduler: Scheduler;
  /** Reads the claim of `key` from the bucket. */
  readonly read: (key: string) => Promise<KvEntry | null>;
  /** The revision of `key`'s claim as the router knows it now, if any. */
  readonly known: (key: string) => number | undefined;
  /** Told when a read found the claim of `key` changed (`null`: it is gone). */
  readonly moved: (key: string, entry: KvEntry | null) => void;
  /**
   * True while nobody can have moved the claim of `key` yet (its owner is only suspected, or this node is
   * taking it over): a read then would only find the same claim, so it waits for the next turn.
   */
  readonly quiet: (key: string) => boolean;
  /** The first read after a caller starts waiting, then doubling delays up to `maxMs`. */
  readonly firstMs: number;
  readonly maxMs: number;
  /** False when a whole-bucket watch brings every change: waiters are then only woken, never read for. */
  readonly reads: () => boolean;
}

/**
 * Callers waiting for a key's claim to change (a takeover, a migration), and the reads made for them.
 * Without the whole-bucket watch nothing pushes a takeover on another node to this one, so while anyone
 * waits the claim is read again with backoff; a wake (a claim learnt here, a MOVED answer, a death
 * declared) lets every waiter of the key go at once.
 */
export class ClaimWaiters {
  private readonly waiters = new Map<string, Set<() => void>>();
  /** The reads made for waiting callers, by key: the revision seen first and the next read's cancel. */
  private readonly rereads = new Map<string, { seen: number | undefined; cancel: () => void }>();

  constructor(private readonly options: ClaimWaitersOptions) {}

  /** Resolves when `key` is woken, or after `maxMs`, whichever comes first. */
  wait(key: string, maxMs: number): Promise<void> {
    const { scheduler } = this.options;
    return new Promise((resolve) => {
      let waiting = this.waiters.get(key);
      if (waiting === undefined) {
        waiting = new Set();
        this.waiters.set(key, waiting);
      }
      const set = waiting;
      const done = (): void => {
        cancel();
        set.delete(done);
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
        resolve();
      };
      const cancel = scheduler.at(scheduler.now() + maxMs, done);
      set.add(done);
      if (this.options.reads() && !this.rereads.has(key)) this.readAfter(key, this.options.firstMs);
    });
  }

  /** Lets every caller waiting for `key` go, and stops the reads made for them. */
  wake(key: string): void {
    const reread = this.rereads.get(key);
    if (reread !== undefined) {
      reread.cancel();
      this.rereads.delete(key);
    }
    const waiting = this.waiters.get(key);
    if (waiting === undefined) return;
    this.waiters.delete(key);
    for (const done of waiting) done();
  }

  wakeAll(): void {
    for (const key of [...this.waiters.keys()]) this.wake(key);
  }

  /**
   * Reads the claim of `key` after `delayMs`, and again at doubling delays while anyone waits; a turn in
   * which the key is quiet reads nothing and comes again after the same delay. The first read only notes
   * the revision when the router knew none.
   */
  private readAfter(key: string, delayMs: number): void {
    const { scheduler, maxMs } = this.options;
    const state = this.rereads.get(key) ?? { seen: this.options.known(key), cancel: () => undefined };
    this.rereads.set(key, state);
    const again = (next: number): void => {
      if (this.rereads.get(key) === state) this.readAfter(key, next);
    };
    state.cancel = scheduler.at(scheduler.now() + delayMs, () => {
      if (!this.waiters.has(key)) {
        this.rereads.delete(key);
        return;
      }
      if (this.options.quiet(key)) {
        again(delayMs);
        return;
      }
      void this.options.read(key).then(
        (entry) => {
          const revision = entry?.revision ?? 0;
          if (state.seen !== undefined && revision !== state.seen) {
            if (this.rereads.get(key) === state) this.rereads.delete(key);
            this.options.moved(key, entry);
            return;
          }
          state.seen = revision;
          again(Math.min(delayMs * 2, maxMs));
        },
        () => {
          again(Math.min(delayMs * 2, maxMs));
        },
      );
    });
  }
}
