import type { Scheduler } from "../actors/runtime/index.ts";

/** The longest delay setTimeout takes; a longer one fires after 1 ms (with a warning) instead. */
const maxDelayMs = 2 ** 31 - 1;

/** The wall clock and setTimeout, for a running node. Lives here because actors/ may not touch either. */
export function realScheduler(): Scheduler {
  return {
    now: () => Date.now(),
    at(at, fn) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      // Re-arms in steps of at most maxDelayMs, checking the wall clock each time, until `at` is reached.
      // setTimeout runs on the monotonic clock and may fire a little before Date.now() reaches `at`: a
      // deadline must never be seen to fire early, so it re-arms for what is left.
      const arm = (): void => {
        const delay = at - Date.now();
        if (delay <= 0) fn();
        else timer = setTimeout(arm, Math.min(delay, maxDelayMs));
      };
      // Never at once, even when `at` has passed: a caller still setting up (the runtime arming a turn
      // that came due while its batch was being written) must get the cancel function before `fn` runs.
      timer = setTimeout(arm, Math.max(0, Math.min(at - Date.now(), maxDelayMs)));
      return () => {
        clearTimeout(timer);
      };
    },
  };
}
