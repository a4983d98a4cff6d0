/** Why a KV operation failed. Stable: matched by code, never by message. */
export const KvErrorCodes = {
  /** `create` found a live value under the key. */
  exists: "exists",
  /** A compare-and-set (`update`, CAS `delete`) found another revision, or no key at all. */
  wrongRevision: "wrong-revision",
  /** The store refused the operation (no leader, no responders, closed): it did not happen. */
  unavailable: "unavailable",
  /** No answer in time: the operation may or may not have happened. Read back before retrying. */
  timeout: "timeout",
} as const;

/** A stable KV failure code. */
export type KvErrorCode = (typeof KvErrorCodes)[keyof typeof KvErrorCodes];

/** The one error a KvStore or KvBucket throws for an operational failure; bad arguments throw TypeError. */
export class KvError extends Error {
  constructor(
    readonly code: KvErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "KvError";
  }
}

/** True for any KvError. */
export function isKvError(error: unknown): error is KvError {
  return error instanceof KvError;
}

/** True when a `create` lost to a live value. */
export function isExists(error: unknown): error is KvError {
  return isKvError(error) && error.code === KvErrorCodes.exists;
}

/** True when a compare-and-set found another revision (NATS 10071, "wrong last sequence"). */
export function isWrongRevision(error: unknown): error is KvError {
  return isKvError(error) && error.code === KvErrorCodes.wrongRevision;
}

/** True when the store refused the operation; it did not happen. */
export function isUnavailable(error: unknown): error is KvError {
  return isKvError(error) && error.code === KvErrorCodes.unavailable;
}

/** True when the outcome is unknown: the write may have landed. */
export function isTimeout(error: unknown): error is KvError {
  return isKvError(error) && error.code === KvErrorCodes.timeout;
}
