import { isRetryable, type ErrorCode } from "../../actors/runtime/error-codes.ts";

/** The one error family at Foyer's edges: a stable code, an optional retry hint, the cause carried. */
export class FoyerError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly retryAfterMs?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "FoyerError";
  }

  /** True for codes the SDK retries by itself (UNAVAILABLE, MOVED, RATE_LIMITED). */
  get retryable(): boolean {
    return isRetryable(this.code);
  }
}

/** Narrows an unknown error to a FoyerError, optionally of one code. */
export function isFoyerError(error: unknown, code?: ErrorCode): error is FoyerError {
  return error instanceof FoyerError && (code === undefined || error.code === code);
}
