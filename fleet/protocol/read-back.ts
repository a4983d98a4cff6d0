import { PersistError, type Scheduler } from "../../actors/runtime/index.ts";
import { isTimeout, isUnavailable } from "../kv-error.ts";

/** How hard to read back after a write whose outcome is unknown. */
export interface ReadBackPolicy {
  /** Reads tried in all (at least 1). */
  readonly attempts: number;
  /** Wait between two reads, on the scheduler's clock. */
  readonly delayMs: number;
}

/** The default: a NATS leader election takes 4–9 s, so keep asking for about a second, then let the actor retry later. */
export const defaultReadBackPolicy: ReadBackPolicy = { attempts: 6, delayMs: 200 };

/**
 * Runs `read` until the store answers it: retries while it fails with `unavailable` or `timeout`, and
 * throws PersistError("unavailable") when no attempt was answered. Other errors pass through.
 */
export async function readBack<T>(
  read: () => Promise<T>,
  policy: ReadBackPolicy,
  scheduler: Scheduler,
): Promise<T> {
  let lastError: unknown;
  for (let attempt = 0; attempt < Math.max(1, policy.attempts); attempt += 1) {
    if (attempt > 0) await sleep(scheduler, policy.delayMs);
    try {
      return await read();
    } catch (error) {
      if (!isUnavailable(error) && !isTimeout(error)) throw error;
      lastError = error;
    }
  }
  throw new PersistError("unavailable", `the store did not answer a read back (${policy.attempts} tries)`, {
    cause: lastError,
  });
}

function sleep(scheduler: Scheduler, ms: number): Promise<void> {
  return new Promise((resolve) => {
    scheduler.at(scheduler.now() + ms, resolve);
  });
}
