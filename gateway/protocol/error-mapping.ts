import { isRetryable, type ErrorCode } from "../../actors/runtime/error-codes.ts";
import type { AskResult } from "../../actors/runtime/index.ts";
import { CloseCodes, type CloseReason } from "./close-codes.ts";
import type { ErrorFrame } from "./server-frames.ts";

/*
 * The one mapping of Foyer's refusals onto the wire: an error code to its error frame (with the retry
 * hint it owes), an answer to its result or error frame, a close reason to its WebSocket close code, and
 * back on the SDK's side a final close code to the error a caller sees.
 */

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

/** The frame that answers request `id`: `result` with its value, or the refusal's error frame. */
export function answerFrame(id: number, result: AskResult): object {
  if (result.ok) return { type: "result", id, value: result.value ?? null };
  return errorFrame(result.code, result.message, id, result.retryAfterMs);
}

/** Whether a refusal is counted as one: UNAVAILABLE says "try again later", not "you were refused". */
export function countsAsRefusal(code: ErrorCode): boolean {
  return code !== "UNAVAILABLE";
}

/** Something a node closes with a reason (a connection, a session's socket). */
interface Closable {
  close(code: number, reason: string): void;
}

/** Closes `socket` with the close code of `reason`, the reason's name as the close frame's text. */
export function closeFor(socket: Closable, reason: CloseReason): void {
  socket.close(CloseCodes[reason].code, reason);
}

/** The error a caller of the SDK sees when the node closed the socket for good with `code`. */
export function errorCodeOfClose(code: number): ErrorCode {
  return code === CloseCodes.UNAUTHORIZED.code ? "UNAUTHORIZED" : "UNAVAILABLE";
}
