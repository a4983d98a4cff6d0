import type { AskResult, Scheduler } from "../../actors/runtime/index.ts";
import { type ActorDelivery, decodeAskResult, encodeDelivery, nodeActorSubject } from "./actor-wire.ts";
import type { Bus } from "../bus.ts";
import { isBusClosed, isBusTimeout, isNoResponders } from "../bus-error.ts";

/** What a sender is told when the owner could not be reached: retry shortly. */
export const retryAfterMs = 250;

/**
 * The FleetRouter's asks to other nodes' NodeEndpoints over the bus: an ask answered `no-responders` is
 * tried again briefly (a peer's subscription reaches the other servers of a cluster a moment after it is
 * made), and a failure becomes an answer the sender can act on.
 */
export class NodeAsks {
  private readonly attempts: number;
  private readonly firstDelayMs: number;

  constructor(
    private readonly bus: Bus,
    private readonly scheduler: Scheduler,
    noResponders?: { readonly attempts: number; readonly firstDelayMs: number },
  ) {
    this.attempts = Math.max(1, noResponders?.attempts ?? 6);
    this.firstDelayMs = noResponders?.firstDelayMs ?? 20;
  }

  async deliverTo(
    node: string,
    key: string,
    delivery: ActorDelivery,
    opts: { timeoutMs: number },
  ): Promise<AskResult> {
    const data = encodeDelivery(delivery);
    let delay = this.firstDelayMs;
    for (let attempt = 1; ; attempt += 1) {
      let answer: Uint8Array;
      try {
        answer = await this.bus.request(nodeActorSubject(node), data, opts);
      } catch (error) {
        // No responders: the node is gone, or its endpoint's subscription has not reached our server
        // yet (NATS-NOTES). Retried briefly, then the sender is told to retry.
        if (isNoResponders(error) && attempt < this.attempts) {
          await this.sleep(delay);
          delay *= 2;
          continue;
        }
        return failed(node, key, error);
      }
      try {
        return decodeAskResult(answer);
      } catch {
        return { ok: false, code: "INTERNAL", message: `${node} answered ${key} with something unreadable` };
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.scheduler.at(this.scheduler.now() + ms, resolve);
    });
  }
}

function failed(node: string, key: string, error: unknown): AskResult {
  if (isBusTimeout(error))
    return { ok: false, code: "TIMEOUT", message: `${node} did not answer for ${key} in time` };
  if (isNoResponders(error) || isBusClosed(error))
    return { ok: false, code: "UNAVAILABLE", message: `${node} cannot be reached for ${key}`, retryAfterMs };
  return { ok: false, code: "INTERNAL", message: `forwarding ${key} to ${node} failed` };
}
