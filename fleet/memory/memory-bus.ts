import type { Bus, BusMessage, BusSubscribeOptions, BusSubscription } from "../bus.ts";
import { BusError, BusErrorCodes } from "../bus-error.ts";
import type { HandlerErrorSink } from "../handler-error.ts";
import { assertQueueName, assertSubject, assertSubjectFilter } from "../subject.ts";

/** A subscription as the in-process router sees it. */
export interface BusRoute {
  readonly filter: string;
  readonly queue: string | undefined;
  /** Takes a message; must copy `data` before returning, since the publisher may reuse its buffer. */
  deliver(subject: string, data: Uint8Array, reply: string | undefined): void;
}

/** What a MemoryBus needs from the medium it is connected to (MemoryBusServer). */
export interface BusRouter {
  /** Adds a route; returns the function that removes it. */
  attach(route: BusRoute): () => void;
  /** Hands a message to every matching route (one per queue group); returns how many took it. */
  route(subject: string, data: Uint8Array, reply: string | undefined): number;
}

/** One in-process bus connection: what a nats connection is to a NATS cluster. */
export class MemoryBus implements Bus {
  private closed = false;
  private inboxes = 0;
  private readonly subscriptions = new Set<BusSubscription>();
  /** The `fail` function of each request still waiting, so close() can reject them. */
  private readonly waiting = new Set<(error: BusError) => void>();

  constructor(
    private readonly router: BusRouter,
    /** Unique on the medium: makes this connection's reply inboxes unique. */
    private readonly id: string,
    private readonly onHandlerError: HandlerErrorSink,
  ) {}

  publish(subject: string, data: Uint8Array): void {
    assertSubject(subject);
    this.assertOpen();
    this.router.route(subject, data, undefined);
  }

  subscribe(
    subject: string,
    handler: (msg: BusMessage) => void,
    opts: BusSubscribeOptions = {},
  ): BusSubscription {
    assertSubjectFilter(subject);
    if (opts.queue !== undefined) assertQueueName(opts.queue);
    this.assertOpen();
    let active = true;
    const detach = this.router.attach({
      filter: subject,
      queue: opts.queue,
      deliver: (msgSubject, data, reply) => {
        const message = this.message(msgSubject, new Uint8Array(data), reply);
        // One microtask per message, queued at publish time: per-subscription order is publish order,
        // and a handler never runs inside the publisher's call.
        queueMicrotask(() => {
          if (!active) return;
          try {
            handler(message);
          } catch (error) {
            this.onHandlerError(error);
          }
        });
      },
    });
    const subscription: BusSubscription = {
      subject,
      unsubscribe: () => {
        active = false;
        detach();
        this.subscriptions.delete(subscription);
      },
    };
    this.subscriptions.add(subscription);
    return subscription;
  }

  request(subject: string, data: Uint8Array, opts: { readonly timeoutMs: number }): Promise<Uint8Array> {
    return new Promise<Uint8Array>((resolve, reject) => {
      assertSubject(subject);
      if (!(opts.timeoutMs > 0)) throw new TypeError(`invalid request timeout ${opts.timeoutMs} ms`);
      this.assertOpen();
      this.inboxes += 1;
      const inbox = `_INBOX.${this.id}.${this.inboxes}`;
      const finish = (): void => {
        clearTimeout(timer);
        subscription.unsubscribe();
        this.waiting.delete(fail);
      };
      const fail = (error: BusError): void => {
        finish();
        reject(error);
      };
      const subscription = this.subscribe(inbox, (msg) => {
        finish();
        resolve(msg.data);
      });
      const timer = setTimeout(() => {
        fail(new BusError(BusErrorCodes.timeout, `no answer on ${subject} within ${opts.timeoutMs} ms`));
      }, opts.timeoutMs);
      this.waiting.add(fail);
      if (this.router.route(subject, data, inbox) === 0) {
        fail(new BusError(BusErrorCodes.noResponders, `no subscriber on ${subject}`));
      }
    });
  }

  flush(): Promise<void> {
    return new Promise((resolve) => {
      this.assertOpen();
      // Deliveries are microtasks queued at publish; a macrotask runs after all of them.
      setImmediate(resolve);
    });
  }

  close(): Promise<void> {
    this.closed = true;
    for (const subscription of [...this.subscriptions]) subscription.unsubscribe();
    for (const fail of [...this.waiting])
      fail(new BusError(BusErrorCodes.closed, "the bus connection closed"));
    return Promise.resolve();
  }

  private message(subject: string, data: Uint8Array, reply: string | undefined): BusMessage {
    const respond = (answer: Uint8Array): boolean => {
      if (reply === undefined || this.closed) return false;
      this.router.route(reply, answer, undefined);
      return true;
    };
    return reply === undefined ? { subject, data, respond } : { subject, data, reply, respond };
  }

  private assertOpen(): void {
    if (this.closed) throw new BusError(BusErrorCodes.closed, "the bus connection is closed");
  }
}
