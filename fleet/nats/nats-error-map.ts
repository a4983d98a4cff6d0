import { BusError, BusErrorCodes } from "../bus-error.ts";
import { KvError, KvErrorCodes } from "../kv-error.ts";

/**
 * The one place where nats.js failures become the fleet's error codes. Matched on nats.js codes and
 * JetStream `api_error.err_code`, never on messages (NATS-NOTES, "KV semantics").
 */

/** JetStream "wrong last sequence": a compare-and-set found another revision (or no key). */
export const jsWrongLastSequence = 10071;

/** What nats.js puts on its errors (NatsError): a code, and for JetStream API refusals the api_error. */
interface NatsErrorShape {
  readonly code?: unknown;
  readonly message: string;
  readonly api_error?: { readonly code?: number; readonly err_code?: number; readonly description?: string };
}

const closedCodes = new Set(["CONNECTION_CLOSED", "CONNECTION_DRAINING"]);
const unreachableCodes = new Set(["DISCONNECT", "CONNECTION_REFUSED", "CONNECTION_TIMEOUT"]);

/**
 * Maps a nats.js failure of a KV operation to a KvError: 10071 → `wrong-revision`; any other JetStream
 * refusal, no responders (503: no stream leader) or a closed connection → `unavailable`; a timeout →
 * `timeout` (the write may have landed). Anything else (a bug, a bad argument) is returned unchanged
 * (a thrown non-Error is wrapped in one).
 */
export function kvErrorFromNats(error: unknown, what: string): Error {
  if (error instanceof KvError) return error;
  if (!(error instanceof Error)) return new Error(`${what}: ${String(error)}`, { cause: error });
  const { api_error: api, code } = error as NatsErrorShape;
  const detail = api?.description ?? error.message;
  if (api?.err_code === jsWrongLastSequence) {
    return new KvError(KvErrorCodes.wrongRevision, `${what}: ${detail}`, { cause: error });
  }
  if (api !== undefined) {
    // 408 is JetStream's own request timeout: the outcome is as unknown as with ours.
    const kvCode = api.code === 408 ? KvErrorCodes.timeout : KvErrorCodes.unavailable;
    return new KvError(kvCode, `${what}: ${detail}`, { cause: error });
  }
  if (code === "TIMEOUT") {
    return new KvError(KvErrorCodes.timeout, `${what}: no answer in time; it may have happened`, {
      cause: error,
    });
  }
  if (code === "503") {
    return new KvError(KvErrorCodes.unavailable, `${what}: no responders (no JetStream leader?)`, {
      cause: error,
    });
  }
  if (typeof code === "string" && (closedCodes.has(code) || unreachableCodes.has(code))) {
    return new KvError(KvErrorCodes.unavailable, `${what}: ${detail}`, { cause: error });
  }
  return error;
}

/**
 * True for a nats.js failure that says "not now": a timeout, no responders, or JetStream's own 503
 * (e.g. 10008, "JetStream system temporarily unavailable", during a leader election).
 */
export function isTransientNatsError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { api_error: api, code } = error as NatsErrorShape;
  return api === undefined ? code === "TIMEOUT" || code === "503" : api.code === 503;
}

/** Maps a nats.js failure of a bus operation to a BusError; anything else is returned unchanged. */
export function busErrorFromNats(error: unknown, what: string): Error {
  if (error instanceof BusError) return error;
  if (!(error instanceof Error)) return new Error(`${what}: ${String(error)}`, { cause: error });
  const { code } = error as NatsErrorShape;
  if (code === "503")
    return new BusError(BusErrorCodes.noResponders, `${what}: no responders`, { cause: error });
  if (code === "TIMEOUT")
    return new BusError(BusErrorCodes.timeout, `${what}: no answer in time`, { cause: error });
  if (typeof code === "string" && closedCodes.has(code)) {
    return new BusError(BusErrorCodes.closed, `${what}: the connection is closed`, { cause: error });
  }
  return error;
}
