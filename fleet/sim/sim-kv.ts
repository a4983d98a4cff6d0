import type { KvBucket, KvEntry, KvStore } from "../kv.ts";
import { KvError, KvErrorCodes } from "../kv-error.ts";
import { MemoryBucketData } from "../memory/index.ts";
import { copyEntry, simWatch } from "./sim-kv-watch.ts";
import type { SimCounters } from "./sim-counters.ts";
import type { SimRandom } from "./sim-random.ts";
import type { SimHost, VirtualLoop } from "./virtual-loop.ts";

/** How often the store misbehaves per operation while faults are on. */
export interface KvFaultRates {
  /** Refused at once (`unavailable`, e.g. no responders): it did not happen. */
  readonly refuse: number;
  /** Answered `timeout`; the operation landed or not (even odds). */
  readonly timeout: number;
  /** A slow operation: one leg of it takes up to 1.5 s (past the client's timeout it is a late write). */
  readonly slow: number;
}

/** Where the store is unreachable: windows of a NATS leader election, and nodes cut off from it. */
export interface KvReachability {
  /** True while every operation of every node is refused (a leader election of 4–9 s). */
  electing(at: number): boolean;
  /** True while `node` is cut off from the store. */
  partitioned(node: string, at: number): boolean;
  /** False once the world is healed: no random refusals, timeouts or slow legs any more. */
  faulty(): boolean;
}

/** Told of every snapshot write that landed, in landing order (the audit of "one writer at a time"). */
export type LandedWrite = (bucket: string, key: string, value: Uint8Array, revision: number) => void;

/** The client's timeout of a KV operation (the fleet's JetStream timeout). */
export const kvTimeoutMs = 1_000;

/**
 * The one shared KV state of a simulated world, answered from a single leader (reads are never stale),
 * seen by each node through `bucketFor`: every operation lands after a random delay and its answer comes
 * back later still, both as events of the virtual loop, with refusals, timeouts that did or did not write,
 * election windows and partitions drawn from the world's random source.
 */
export class SimKv {
  private readonly data = new Map<string, MemoryBucketData>();

  constructor(
    private readonly loop: VirtualLoop,
    private readonly random: SimRandom,
    private readonly rates: KvFaultRates,
    private readonly reach: KvReachability,
    private readonly landed: LandedWrite,
    /** Told of every operation and watch delivery, by bucket (the scale scenario's counts). */
    private readonly counters?: SimCounters,
  ) {}

  /** The shared state of `name`, for the checks (no faults, no delay). */
  state(name: string): MemoryBucketData {
    let data = this.data.get(name);
    if (data === undefined) {
      data = new MemoryBucketData(name, 1);
      this.data.set(name, data);
    }
    return data;
  }

  /** The store as the process `host` of node `node` sees it: its buckets by name. */
  storeFor(node: string, host: SimHost): Pick<KvStore, "bucket"> {
    return { bucket: (name) => Promise.resolve(this.bucketFor(name, node, host)) };
  }

  /** Bucket `name` as the process `host` of node `node` sees it. */
  bucketFor(name: string, node: string, host: SimHost): KvBucket {
    const data = this.state(name);
    const counters = this.counters;
    const op = <T>(apply: () => T, kind: string): Promise<T> => {
      counters?.add(`kv.${kind}.${name}`);
      return this.operate(node, host, apply);
    };
    const wrote = (key: string, value: Uint8Array, revision: number): number => {
      this.landed(name, key, value, revision);
      return revision;
    };
    return {
      name,
      get: (key) => op(() => copy(data.get(key)), "get"),
      create: (key, value) => {
        const bytes = new Uint8Array(value);
        return op(() => wrote(key, bytes, data.create(key, bytes)), "create");
      },
      update: (key, value, expected) => {
        const bytes = new Uint8Array(value);
        return op(() => wrote(key, bytes, data.update(key, bytes, expected)), "update");
      },
      put: (key, value) => {
        const bytes = new Uint8Array(value);
        return op(() => wrote(key, bytes, data.put(key, bytes)), "put");
      },
      delete: (key, opts) =>
        op(() => {
          data.delete(key, opts?.expectedRevision);
        }, "delete"),
      keys: (prefix) =>
        op(() => {
          const found = data.keys(prefix ?? "");
          // A NATS listing delivers one message per key: counted, as a watch's deliveries are.
          counters?.add(`kv.listed.${name}`, found.length);
          return found;
        }, "keys"),
      watch: (opts, onEntry) =>
        simWatch(
          data,
          host,
          { loop: this.loop, random: this.random, unreachable: (at) => this.unreachable(node, at) },
          opts,
          (entry) => {
            counters?.add(`kv.watch.${name}`);
            onEntry(entry);
          },
        ),
    };
  }

  private operate<T>(node: string, host: SimHost, apply: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const sent = this.loop.now;
      const answer = (at: number, settle: () => void): void => {
        this.loop.schedule(at, settle, host);
      };
      const refused = (why: string) => () => {
        reject(new KvError(KvErrorCodes.unavailable, `${why} (simulated)`));
      };
      if (this.unreachable(node, sent)) {
        answer(sent + this.random.between(1, 20), refused("no responders"));
        return;
      }
      const faulty = this.reach.faulty();
      if (faulty && this.random.chance(this.rates.refuse)) {
        answer(sent + this.random.between(1, 20), refused("refused"));
        return;
      }
      const timedOut = faulty && this.random.chance(this.rates.timeout);
      const lands = !timedOut || this.random.chance(0.5);
      const there = this.leg(faulty);
      const back = this.leg(faulty);
      const late = timedOut || there + back >= kvTimeoutMs;
      if (late) {
        answer(sent + kvTimeoutMs, () => {
          reject(new KvError(KvErrorCodes.timeout, "no answer in time (simulated)"));
        });
      }
      if (!lands) return;
      this.loop.schedule(sent + there, () => {
        let outcome: () => void;
        if (this.unreachable(node, this.loop.now)) {
          outcome = refused("the leader stepped down");
        } else {
          try {
            const value = apply();
            outcome = () => {
              resolve(value);
            };
          } catch (error) {
            outcome = () => {
              reject(error instanceof Error ? error : new Error(String(error)));
            };
          }
        }
        if (!late) answer(this.loop.now + back, outcome);
      });
    });
  }

  private unreachable(node: string, at: number): boolean {
    return this.reach.electing(at) || this.reach.partitioned(node, at);
  }

  /** One network leg: a few ms, now and then much longer while faults are on. */
  private leg(faulty: boolean): number {
    if (faulty && this.random.chance(this.rates.slow)) return this.random.between(100, 1_500);
    return this.random.between(1, 15);
  }
}

function copy(entry: KvEntry | undefined): KvEntry | null {
  return entry === undefined ? null : copyEntry(entry);
}
