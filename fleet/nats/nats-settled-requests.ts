import { RequestOne } from "nats/lib/nats-base-client/request.js";

type Resolver = RequestOne["resolver"];
type Cancel = RequestOne["cancel"];

/** Requests nats.js has already answered (or failed): cancelling one only unsubscribes it. */
const settled = new WeakSet<RequestOne>();
let installed = false;

/**
 * nats.js (2.29) ends every answered request by cancelling it, and its `cancel` makes a `NatsError`
 * ("cancelled") to reject the promise it has just resolved: an Error, with its stack captured, for every
 * KV write and every request. A drain's target spent 3.6 % of its CPU making them (docs/fleet.md). Once
 * the request is settled that rejection does nothing, so `cancel` then only stops the timer and
 * unsubscribes, as before; a cancel of a request still waiting is nats.js's own. The class is nats.js's;
 * the package version is pinned, and test/unit/nats-settled-requests.test.ts fails if its shape changes.
 */
export function skipErrorsOfSettledRequests(): void {
  if (installed) return;
  installed = true;
  const prototype = RequestOne.prototype;
  const resolver = Object.getOwnPropertyDescriptor(prototype, "resolver")?.value as Resolver | undefined;
  const cancel = Object.getOwnPropertyDescriptor(prototype, "cancel")?.value as Cancel | undefined;
  if (typeof resolver !== "function" || typeof cancel !== "function")
    throw new Error(
      "nats.js's RequestOne has no resolver or cancel: update fleet/nats/nats-settled-requests.ts",
    );
  prototype.resolver = function (this: RequestOne, ...args: Parameters<Resolver>): void {
    settled.add(this);
    resolver.apply(this, args);
  };
  prototype.cancel = function (this: RequestOne, error?: Parameters<Cancel>[0]): void {
    if (error !== undefined || !settled.has(this)) {
      cancel.call(this, error);
      return;
    }
    this.timer.cancel();
    this.mux.cancel(this);
  };
}
