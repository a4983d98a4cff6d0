import { classGuard, CodedError, codeGuard, type CodeOf } from "./coded-error.ts";

/** Why a bus operation failed. Stable: matched by code, never by message. */
export const BusErrorCodes = {
  /** Nobody subscribes to the subject of a request: no one will ever answer it. */
  noResponders: "no-responders",
  /** A request was not answered in time; the responder may still have acted on it. */
  timeout: "timeout",
  /** The bus connection is closed (or closed while a request waited). */
  closed: "closed",
} as const;

/** A stable bus failure code. */
export type BusErrorCode = CodeOf<typeof BusErrorCodes>;

/** The one error a Bus throws for an operational failure; bad subjects throw TypeError. */
export class BusError extends CodedError<BusErrorCode> {
  override name = "BusError";
}

/** True for any BusError. */
export const isBusError = classGuard(BusError);

/** True when a request had no subscriber to answer it. */
export const isNoResponders = codeGuard(isBusError, BusErrorCodes.noResponders);

/** True when a request was not answered in time. */
export const isBusTimeout = codeGuard(isBusError, BusErrorCodes.timeout);

/** True when the bus connection is closed. */
export const isBusClosed = codeGuard(isBusError, BusErrorCodes.closed);
