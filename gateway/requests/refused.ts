import type { AskResult, ErrorCode } from "../../actors/runtime/index.ts";

/**
 * A handler's refusal: the code and why, and for a retryable one when to try again. The connection
 * turns it into an error frame (protocol/error-mapping.ts), so handlers never build frames themselves.
 */
export function refused(code: ErrorCode, message: string, retryAfterMs?: number): AskResult {
  return retryAfterMs === undefined
    ? { ok: false, code, message }
    : { ok: false, code, message, retryAfterMs };
}
