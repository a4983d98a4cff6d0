import { NodeTransport } from "nats/lib/src/node_transport.js";

type Send = (this: NodeTransport, frame: Uint8Array) => Promise<void>;
type Close = (this: NodeTransport, error?: Error) => Promise<void>;

/** Sockets corked until the end of this turn of the event loop. */
const corked = new WeakSet<object>();
let installed = false;

/**
 * nats.js (2.29) writes to its socket once for every microtask in which something was sent: under load
 * a survivor of a failover, or a drain's target, spent a quarter of its CPU in `write` calls of a few
 * hundred bytes each. This corks the socket at the first frame of a turn of the event loop and uncorks it
 * at its end (`setImmediate`), so everything sent in one turn leaves in one `writev`. A frame waits at
 * most for the rest of the turn it was sent in. The class is nats.js's own Node transport; the package
 * version is pinned, and test/unit/nats-write-coalescing.test.ts fails if its shape changes.
 */
export function coalesceNatsWrites(): void {
  if (installed) return;
  installed = true;
  const prototype = NodeTransport.prototype;
  const send = Object.getOwnPropertyDescriptor(prototype, "_send")?.value as Send | undefined;
  if (typeof send !== "function")
    throw new Error("nats.js's NodeTransport has no _send: update fleet/nats/nats-write-coalescing.ts");
  prototype._send = function (this: NodeTransport, frame: Uint8Array): Promise<void> {
    const socket = this.socket as NodeTransport["socket"] | undefined;
    if (socket !== undefined && !socket.destroyed && !corked.has(socket)) {
      corked.add(socket);
      socket.cork();
      setImmediate(() => {
        corked.delete(socket);
        socket.uncork();
      });
    }
    return send.call(this, frame);
  };
  // A close from outside (`nc.close()`) destroys the socket at once: what this turn corked goes first.
  const close = Object.getOwnPropertyDescriptor(prototype, "close")?.value as Close | undefined;
  if (typeof close !== "function")
    throw new Error("nats.js's NodeTransport has no close: update fleet/nats/nats-write-coalescing.ts");
  prototype.close = function (this: NodeTransport, error?: Error): Promise<void> {
    (this.socket as NodeTransport["socket"] | undefined)?.uncork();
    return close.call(this, error);
  };
}
