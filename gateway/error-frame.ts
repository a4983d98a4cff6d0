import { isRetryable, type ErrorCode } from "../actors/runtime/index.ts";
import type { ErrorFrame } from "./protocol/server-frames.ts";

/**
 * The wait a retryable refusal suggests when its source named none. A client retries a retryable code
 * with the same id, so every such frame says when: without a hint clients guess, and a guess that is too
 * short turns an overloaded node's refusals into a retry storm.
 */
export const defaultRetryAfterMs = {
  /** A store or node that is not taking writes needs a moment, not a tight loop. */
  UNAVAILABLE: 500,
  /** The new owner is usually known at once: a quick retry finds it. */
  MOVED: 100,
  /** The rate limiter normally gives its own figure; this is the fallback (one refill at 1/s). */
  RATE_LIMITED: 1_000,
} as const satisfies Partial<Record<ErrorCode, number>>;

/** Used for a retryable code added later that has no entry above yet. */
const fallbackRetryAfterMs = 250;

function retryHint(code: ErrorCode): number {
  return (defaultRetryAfterMs as Partial<Record<ErrorCode, number>>)[code] ?? fallbackRetryAfterMs;
}

/**
 * The one place error frames are built. A retryable code always carries `retryAfterMs` (the given one,
 * or the code's default); a final code never does, since retrying it is pointless.
 */
export function errorFrame(code: ErrorCode, message: string, id?: number, retryAfterMs?: number): ErrorFrame {
  const frame: ErrorFrame = { type: "error", code, message };
  if (id !== undefined) frame.id = id;
  if (isRetryable(code)) frame.retryAfterMs = Math.max(0, Math.round(retryAfterMs ?? retryHint(code)));
  return frame;
}
