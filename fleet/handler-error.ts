/**
 * Where the in-process bus and KV send an exception thrown by a subscriber's handler or a watch callback.
 * The throw is isolated — later deliveries go on — and reported here; a node wires this to its logger.
 */
export type HandlerErrorSink = (error: unknown) => void;

/** The default sink: rethrows outside the delivery loop, so a bug is loud (an uncaught exception) but no
 * other subscriber misses its message. */
export function throwLater(error: unknown): void {
  setTimeout(() => {
    throw error;
  }, 0);
}
