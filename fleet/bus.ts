/**
 * The message bus the fleet consumes: NATS core publish/subscribe and request/reply. One Bus is one
 * connection; the NATS implementation is a thin adapter, the in-memory one (embedded mode) keeps the same
 * subject rules (subject.ts). Operational failures throw BusError (bus-error.ts); bad subjects TypeError.
 */

/** A message as a subscriber receives it. */
export interface BusMessage {
  readonly subject: string;
  /** A copy owned by this subscriber. */
  readonly data: Uint8Array;
  /** Where an answer goes, when the sender asked for one. */
  readonly reply?: string;
  /** Answers a request; false when the message carries no reply subject (or the connection is closed). */
  respond(data: Uint8Array): boolean;
}

/** What a subscription may ask for. */
export interface BusSubscribeOptions {
  /** Queue group: each message goes to one member of the group instead of to all of them. */
  readonly queue?: string;
}

/** A live subscription. */
export interface BusSubscription {
  readonly subject: string;
  /** Stops delivery at once, messages already queued included. Idempotent. */
  unsubscribe(): void;
}

/** A connection to the bus. */
export interface Bus {
  /** Sends `data` to every subscriber of `subject` (one per queue group). Copies `data` before returning. */
  publish(subject: string, data: Uint8Array): void;
  /**
   * Calls `handler` for each message on subjects matching `subject` (`*` one token, `>` the rest), in
   * publish order, never synchronously inside `publish`. A handler that throws does not stop delivery.
   */
  subscribe(subject: string, handler: (msg: BusMessage) => void, opts?: BusSubscribeOptions): BusSubscription;
  /** Sends a request and resolves with the first answer. Rejects `no-responders`, `timeout` or `closed`. */
  request(subject: string, data: Uint8Array, opts: { readonly timeoutMs: number }): Promise<Uint8Array>;
  /** Resolves when everything published so far has been handed to the bus. */
  flush(): Promise<void>;
  /** Ends every subscription and rejects pending requests with `closed`. Idempotent. */
  close(): Promise<void>;
}
