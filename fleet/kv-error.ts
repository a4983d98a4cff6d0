import { classGuard, CodedError, codeGuard, type CodeOf } from "./coded-error.ts";

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
export type KvErrorCode = CodeOf<typeof KvErrorCodes>;

/** The one error a KvStore or KvBucket throws for an operational failure; bad arguments throw TypeError. */
export class KvError extends CodedError<KvErrorCode> {
  override name = "KvError";
}

/** True for any KvError. */
export const isKvError = classGuard(KvError);

/** True when a `create` lost to a live value. */
export const isExists = codeGuard(isKvError, KvErrorCodes.exists);

/** True when a compare-and-set found another revision (NATS 10071, "wrong last sequence"). */
export const isWrongRevision = codeGuard(isKvError, KvErrorCodes.wrongRevision);

/** True when the store refused the operation; it did not happen. */
export const isUnavailable = codeGuard(isKvError, KvErrorCodes.unavailable);

/** True when the outcome is unknown: the write may have landed. */
export const isTimeout = codeGuard(isKvError, KvErrorCodes.timeout);
