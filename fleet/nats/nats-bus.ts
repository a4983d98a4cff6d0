import type { Msg, NatsConnection, Subscription } from "nats";
import type { Bus, BusMessage, BusSubscribeOptions, BusSubscription } from "../bus.ts";
import { BusError, BusErrorCodes } from "../bus-error.ts";
import { type HandlerErrorSink, throwLater } from "../handler-error.ts";
import { busErrorFromNats } from "./nats-error-map.ts";
import { assertQueueName, assertSubject, assertSubjectFilter } from "../subject.ts";

/** How a NatsBus uses its connection. */
export interface NatsBusOptions {
  /** close() also closes the connection (when the bus was given a connection of its own). */
  readonly ownsConnection?: boolean;
  /** Receives exceptions thrown by subscription handlers (default: rethrown outside the delivery loop). */
  readonly onHandlerError?: HandlerErrorSink;
}

/**
 * The Bus over NATS core (nats.js 2.29): a thin adapter that copies data both ways (nats.js queues the
 * caller's buffer until the socket write, and hands subscribers a view of its read buffer) and maps
 * failures to BusError codes.
 *
 * On a cluster, `flush()` means this connection's server has everything; other servers learn of a new
 * subscription a moment later (NATS-NOTES: a burst published on another server right after a flush can
 * miss it), so a request right after subscribing can still see `no-responders`: retry it.
 */
export class NatsBus implements Bus {
  private closed = false;
  private closing: Promise<void> | undefined;
  private readonly subscriptions = new Set<{ active: boolean; sub: Subscription }>();
  /** The `fail` function of each request still waiting, so close() can reject them. */
  private readonly waiting = new Set<(error: BusError) => void>();
  private readonly ownsConnection: boolean;
  private readonly onHandlerError: HandlerErrorSink;

  constructor(
    private readonly nc: NatsConnection,
    options: NatsBusOptions = {},
  ) {
    this.ownsConnection = options.ownsConnection ?? false;
    this.onHandlerError = options.onHandlerError ?? throwLater;
  }

  publish(subject: string, data: Uint8Array): void {
    assertSubject(subject);
    this.assertOpen();
    try {
      this.nc.publish(subject, new Uint8Array(data));
    } catch (error) {
      throw busErrorFromNats(error, `publish ${subject}`);
    }
  }

  subscribe(
    subject: string,
    handler: (msg: BusMessage) => void,
    opts: BusSubscribeOptions = {},
  ): BusSubscription {
    assertSubjectFilter(subject);
    if (opts.queue !== undefined) assertQueueName(opts.queue);
    this.assertOpen();
    const entry: { active: boolean; sub: Subscription } = {
      active: true,
      sub: this.nc.subscribe(subject, {
        ...(opts.queue === undefined ? {} : { queue: opts.queue }),
        callback: (error, msg) => {
          // nats.js calls back with an error only when the subscription itself fails (permissions).
          if (!entry.active) return;
          if (error !== null) {
            this.onHandlerError(error);
            return;
          }
          try {
            handler(this.message(msg));
          } catch (thrown) {
            this.onHandlerError(thrown);
          }
        },
      }),
    };
    this.subscriptions.add(entry);
    return {
      subject,
      unsubscribe: () => {
        if (!entry.active) return;
        entry.active = false; // drops messages already read from the socket, too
        this.subscriptions.delete(entry);
        if (!this.nc.isClosed()) entry.sub.unsubscribe();
      },
    };
  }

  request(subject: string, data: Uint8Array, opts: { readonly timeoutMs: number }): Promise<Uint8Array> {
    return new Promise<Uint8Array>((resolve, reject) => {
      assertSubject(subject);
      if (!(opts.timeoutMs > 0)) throw new TypeError(`invalid request timeout ${opts.timeoutMs} ms`);
      this.assertOpen();
      const fail = (error: BusError): void => {
        this.waiting.delete(fail);
        reject(error);
      };
      this.waiting.add(fail);
      this.nc.request(subject, new Uint8Array(data), { timeout: opts.timeoutMs }).then(
        (msg) => {
          this.waiting.delete(fail);
          resolve(new Uint8Array(msg.data));
        },
        (error: unknown) => {
          this.waiting.delete(fail);
          reject(busErrorFromNats(error, `request ${subject}`));
        },
      );
    });
  }

  async flush(): Promise<void> {
    this.assertOpen();
    try {
      await this.nc.flush();
    } catch (error) {
      throw busErrorFromNats(error, "flush");
    }
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.closed = true;
    for (const entry of [...this.subscriptions]) {
      entry.active = false;
      if (!this.nc.isClosed()) entry.sub.unsubscribe();
    }
    this.subscriptions.clear();
    for (const fail of [...this.waiting])
      fail(new BusError(BusErrorCodes.closed, "the bus connection closed"));
    if (this.ownsConnection) await this.nc.close();
  }

  private message(msg: Msg): BusMessage {
    const data = new Uint8Array(msg.data);
    const reply = msg.reply === undefined || msg.reply === "" ? undefined : msg.reply;
    const respond = (answer: Uint8Array): boolean => {
      if (reply === undefined || this.closed || this.nc.isClosed()) return false;
      try {
        this.nc.publish(reply, new Uint8Array(answer));
        return true;
      } catch {
        return false;
      }
    };
    return reply === undefined
      ? { subject: msg.subject, data, respond }
      : { subject: msg.subject, data, reply, respond };
  }

  private assertOpen(): void {
    if (this.closed || this.nc.isClosed()) {
      throw new BusError(BusErrorCodes.closed, "the bus connection is closed");
    }
  }
}
