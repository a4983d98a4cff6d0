import type { Bus, BusMessage, BusSubscription } from "../bus.ts";
import { BusError, BusErrorCodes } from "../bus-error.ts";
import { subjectMatches } from "../subject.ts";
import { type SimCounters, countedSubject } from "./sim-counters.ts";
import type { SimRandom } from "./sim-random.ts";
import type { SimHost, VirtualLoop } from "./virtual-loop.ts";

/** How often the simulated bus misbehaves per request while faults are on. */
export interface BusFaultRates {
  /** The request is lost on its way: never delivered, the requester times out. */
  readonly dropRequest: number;
  /** The answer is lost on its way back: the responder acted, the requester times out. */
  readonly dropReply: number;
  /** One leg is slow (up to 3 s): past the requester's timeout, an answer that comes too late. */
  readonly slow: number;
}

interface Subscriber {
  readonly subject: string;
  readonly host: SimHost;
  readonly handler: (message: BusMessage) => void;
  active: boolean;
}

/**
 * NATS core between simulated processes: publish to every subscriber whose filter matches (`*`, `>`), in
 * publish order per subscriber, and request/reply to one responder. Every delivery is an event of the
 * virtual loop on the receiving process (a paused process gets it late, a stopped one never), with lost
 * messages, lost replies and slow legs drawn from the world's random source while faults are on. A
 * request that timed out may still have been delivered and acted on. No queue groups: the fleet uses none.
 */
export class SimNet {
  private readonly subscribers: Subscriber[] = [];
  /** Per subscriber, the latest time a published message is due there: later ones never overtake it. */
  private readonly dueAt = new WeakMap<Subscriber, number>();
  private inboxes = 0;

  constructor(
    private readonly loop: VirtualLoop,
    private readonly random: SimRandom,
    private readonly rates: BusFaultRates,
    private readonly faulty: () => boolean,
    private readonly log: (line: string) => void,
    /** Told of every publish, delivery and request (the scale scenario's counts). */
    private readonly counters?: SimCounters,
  ) {}

  /** The bus as the process `host` sees it. */
  busFor(host: SimHost): Bus {
    const mine: Subscriber[] = [];
    let closed = false;
    return {
      publish: (subject, data) => {
        if (!closed) this.publish(subject, new Uint8Array(data));
      },
      subscribe: (subject, handler): BusSubscription => {
        const subscriber: Subscriber = { subject, host, handler, active: !closed };
        if (!closed) this.subscribers.push(subscriber);
        mine.push(subscriber);
        return {
          subject,
          unsubscribe: () => {
            this.remove(subscriber);
          },
        };
      },
      request: (subject, data, { timeoutMs }) => {
        if (closed) return Promise.reject(new BusError(BusErrorCodes.closed, "closed"));
        return this.request(host, subject, data, timeoutMs);
      },
      flush: () => Promise.resolve(),
      close: () => {
        closed = true;
        for (const subscriber of mine) this.remove(subscriber);
        return Promise.resolve();
      },
    };
  }

  private remove(subscriber: Subscriber): void {
    subscriber.active = false;
    const at = this.subscribers.indexOf(subscriber);
    if (at >= 0) this.subscribers.splice(at, 1);
  }

  /** Subscribers that would hear `subject` now: active, on a process that runs. */
  private listening(subject: string): Subscriber[] {
    return this.subscribers.filter((s) => s.active && !s.host.stopped && subjectMatches(s.subject, subject));
  }

  /** Fire and forget: each subscriber hears it after its own delay, or (while faults are on) never. */
  private publish(subject: string, data: Uint8Array): void {
    const faulty = this.faulty();
    const counted = countedSubject(subject);
    this.counters?.add(`bus.publish.${counted}`);
    for (const subscriber of this.listening(subject)) {
      if (faulty && this.random.chance(this.rates.dropRequest)) {
        this.log(`bus message ${subject} lost`);
        continue;
      }
      const at = Math.max(this.dueAt.get(subscriber) ?? 0, this.loop.now + this.leg(faulty));
      this.dueAt.set(subscriber, at);
      this.loop.schedule(
        at,
        () => {
          if (!subscriber.active) return;
          this.counters?.add(`bus.delivered.${counted}`);
          subscriber.handler({ subject, data: new Uint8Array(data), respond: () => false });
        },
        subscriber.host,
      );
    }
  }

  private request(from: SimHost, subject: string, data: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const id = ++this.inboxes;
    this.counters?.add(`bus.request.${countedSubject(subject)}`);
    return new Promise<Uint8Array>((resolve, reject) => {
      let settled = false;
      const settle = (run: () => void): void => {
        if (settled) return;
        settled = true;
        run();
      };
      const sent = this.loop.now;
      // One process per node id serves its subjects: the newest subscription (a restart's) answers.
      const subscriber = this.listening(subject).at(-1);
      if (subscriber === undefined) {
        this.loop.schedule(
          sent + this.random.between(1, 10),
          () => {
            settle(() => {
              reject(new BusError(BusErrorCodes.noResponders, `no responders on ${subject}`));
            });
          },
          from,
        );
        return;
      }
      this.loop.schedule(
        sent + timeoutMs,
        () => {
          settle(() => {
            this.log(`bus request #${id} ${subject} timed out`);
            reject(new BusError(BusErrorCodes.timeout, `no answer on ${subject} in time`));
          });
        },
        from,
      );
      const faulty = this.faulty();
      if (faulty && this.random.chance(this.rates.dropRequest)) {
        this.log(`bus request #${id} ${subject} lost`);
        return;
      }
      const dropReply = faulty && this.random.chance(this.rates.dropReply);
      const there = this.leg(faulty);
      const back = this.leg(faulty);
      this.loop.schedule(
        sent + there,
        () => {
          if (!subscriber.active) return;
          this.log(`bus request #${id} ${subject} delivered`);
          let answered = false;
          subscriber.handler({
            subject,
            data: new Uint8Array(data),
            reply: `_INBOX.${id}`,
            respond: (reply) => {
              if (answered || subscriber.host.stopped) return false;
              answered = true;
              if (dropReply) {
                this.log(`bus reply #${id} lost`);
                return true;
              }
              const bytes = new Uint8Array(reply);
              this.loop.schedule(
                this.loop.now + back,
                () => {
                  settle(() => {
                    resolve(bytes);
                  });
                },
                from,
              );
              return true;
            },
          });
        },
        subscriber.host,
      );
    });
  }

  private leg(faulty: boolean): number {
    if (faulty && this.random.chance(this.rates.slow)) return this.random.between(200, 3_000);
    return this.random.between(1, 15);
  }
}
