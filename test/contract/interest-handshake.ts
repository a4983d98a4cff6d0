import { isBusClosed, isNoResponders } from "../../fleet/index.ts";
import type { Bus, BusMessage, BusSubscribeOptions, BusSubscription } from "../../fleet/index.ts";

const empty = new Uint8Array();
const handshakeDeadlineMs = 5_000;

/**
 * Buses on different servers of one NATS cluster, whose `flush()` also waits until every other server
 * knows this connection's subscriptions — the readiness handshake NATS-NOTES asks tests to use: a server
 * forwards a client's subscriptions to its routes in order, so when each peer's request reaches a probe
 * subscribed after them, the peer's server knows them all. Everything else passes straight through.
 */
export function withInterestHandshake(buses: readonly Bus[]): Bus[] {
  const wrapped = buses.map((bus, i) => new HandshakeBus(bus, `b${i}`));
  for (const bus of wrapped) bus.peers = buses.filter((other) => other !== bus.inner);
  return wrapped;
}

class HandshakeBus implements Bus {
  peers: readonly Bus[] = [];
  private probes = 0;

  constructor(
    readonly inner: Bus,
    private readonly id: string,
  ) {}

  publish(subject: string, data: Uint8Array): void {
    this.inner.publish(subject, data);
  }

  subscribe(
    subject: string,
    handler: (msg: BusMessage) => void,
    opts?: BusSubscribeOptions,
  ): BusSubscription {
    return this.inner.subscribe(subject, handler, opts);
  }

  request(subject: string, data: Uint8Array, opts: { readonly timeoutMs: number }): Promise<Uint8Array> {
    return this.inner.request(subject, data, opts);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  async flush(): Promise<void> {
    await this.inner.flush();
    this.probes += 1;
    const subject = `_handshake.${this.id}.${Date.now().toString(36)}.${this.probes}`;
    const probe = this.inner.subscribe(subject, (msg) => msg.respond(empty));
    try {
      await this.inner.flush();
      await Promise.all(this.peers.map((peer) => askUntilAnswered(peer, subject)));
    } finally {
      probe.unsubscribe();
    }
  }
}

async function askUntilAnswered(peer: Bus, subject: string): Promise<void> {
  const deadline = Date.now() + handshakeDeadlineMs;
  for (;;) {
    try {
      await peer.request(subject, empty, { timeoutMs: 1_000 });
      return;
    } catch (error) {
      if (isBusClosed(error)) return; // a closed peer publishes nothing
      if (!isNoResponders(error) || Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
