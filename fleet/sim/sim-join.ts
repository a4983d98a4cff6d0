import type { Scheduler } from "../../actors/runtime/index.ts";

/** Runs `join` until it succeeds, waiting 200 ms after the first failure, doubling up to 2 s. */
export async function joinUntilDone(
  join: () => Promise<void>,
  scheduler: Scheduler,
  failed: (error: unknown) => void,
): Promise<void> {
  for (let delay = 200; ; delay = Math.min(delay * 2, 2_000)) {
    try {
      await join();
      return;
    } catch (error) {
      failed(error);
      await new Promise<void>((resolve) => {
        scheduler.at(scheduler.now() + delay, resolve);
      });
    }
  }
}
