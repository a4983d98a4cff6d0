import { FoyerError } from "../protocol/foyer-error.ts";

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: FoyerError) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

/** The callers of `connect()` waiting for a welcome, each with its own deadline. */
export class ConnectWaiters {
  private waiters: Waiter[] = [];

  /** Waits for the next welcome; rejects with UNAVAILABLE when none came within `timeoutMs`. */
  wait(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(new FoyerError("UNAVAILABLE", `no welcome from the node within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** A welcome came: every waiter is connected. */
  succeed(): void {
    for (const waiter of this.take()) waiter.resolve();
  }

  /** The connection ended for good: every waiter fails with `error`. */
  fail(error: FoyerError): void {
    for (const waiter of this.take()) waiter.reject(error);
  }

  private take(): Waiter[] {
    const taken = this.waiters;
    this.waiters = [];
    for (const waiter of taken) clearTimeout(waiter.timer);
    return taken;
  }
}
