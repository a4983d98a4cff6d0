import { Events, type JetStreamClient, type NatsConnection } from "nats";
import type { KvBucket, KvBucketOptions, KvStore } from "../kv.ts";
import { KvError, KvErrorCodes } from "../kv-error.ts";
import { assertBucketName } from "../kv-key.ts";
import { type HandlerErrorSink, throwLater } from "../handler-error.ts";
import { NatsKvBucket, type NatsKvBucketHost } from "./nats-kv-bucket.ts";
import { defaultJetStreamTimeoutMs } from "./nats-connection.ts";
import { isTransientNatsError, kvErrorFromNats } from "./nats-error-map.ts";
import type { NatsKvWatch } from "./nats-kv-watch.ts";

/** How a NatsKvStore uses its connection. */
export interface NatsKvStoreOptions {
  /** Replicas of buckets this store makes: 3 on a 3-server cluster, 1 on one server. Default 1. */
  readonly replicas?: number;
  /** JetStream request timeout (default 1 s: a timed-out write is read back, so wait briefly). */
  readonly timeoutMs?: number;
  /**
   * How long opening a bucket may take (default 10 s), in tries of up to 2 s: a replicated stream
   * answers its create only once it has elected a leader, which took over 1 s now and then on a
   * 3-server loopback cluster.
   */
  readonly bucketTimeoutMs?: number;
  /** close() also closes the connection (when the store was given a connection of its own). */
  readonly ownsConnection?: boolean;
  /** Receives exceptions thrown by watch callbacks (default: rethrown outside the delivery loop). */
  readonly onHandlerError?: HandlerErrorSink;
}

/**
 * The KvStore over JetStream KV (nats.js 2.29). Buckets are made with `allow_direct: false` and read
 * with a stream message get, which the stream leader answers — a direct get may be answered by a
 * follower and be stale (FLEET-PROTOCOL: read back from the leader). Keys are stored verbatim;
 * prefixes are filtered as kv-prefix-filter.ts says. Watches are made again after every reconnect.
 */
export class NatsKvStore implements KvStore {
  private closed = false;
  private readonly onHandlerError: HandlerErrorSink;
  private readonly timeoutMs: number;
  private readonly js: JetStreamClient;
  /** The same connection with a longer timeout, for making buckets. */
  private readonly adminJs: JetStreamClient;
  private readonly bucketTimeoutMs: number;
  private readonly replicas: number;
  private readonly ownsConnection: boolean;
  private readonly watches = new Set<NatsKvWatch>();
  private readonly stopStatus: () => void;

  constructor(
    private readonly nc: NatsConnection,
    options: NatsKvStoreOptions = {},
  ) {
    this.replicas = options.replicas ?? 1;
    checkBucketOptions(this.replicas, 1);
    this.timeoutMs = options.timeoutMs ?? defaultJetStreamTimeoutMs;
    this.ownsConnection = options.ownsConnection ?? false;
    this.onHandlerError = options.onHandlerError ?? throwLater;
    this.js = nc.jetstream({ timeout: this.timeoutMs });
    this.bucketTimeoutMs = options.bucketTimeoutMs ?? 10_000;
    this.adminJs = nc.jetstream({ timeout: Math.min(this.bucketTimeoutMs, 2_000) });
    this.stopStatus = this.reopenWatchesOnReconnect();
    void nc.closed().then(() => {
      this.stopWatches();
    });
  }

  async bucket(name: string, opts: KvBucketOptions = {}): Promise<KvBucket> {
    this.assertOpen();
    assertBucketName(name);
    const replicas = opts.replicas ?? this.replicas;
    const history = opts.history ?? 1;
    checkBucketOptions(replicas, history);
    await this.makeBucket(name, replicas, history);
    try {
      const kv = await this.js.views.kv(name, { bindOnly: true, allow_direct: false });
      return new NatsKvBucket(name, kv, this.host);
    } catch (error) {
      throw kvErrorFromNats(error, `bucket ${name}`);
    }
  }

  /**
   * Makes the bucket's stream, or finds it (an existing bucket keeps its settings). `allow_direct: false`
   * makes nats.js read through the stream leader even when someone else made the bucket with direct gets
   * on. Each try gets at most 2 s and is repeated until bucketTimeoutMs: when several clients make one
   * replicated stream at once, nats-server 2.10 leaves some of their requests unanswered, while the
   * stream is there for the next try to find.
   */
  private async makeBucket(name: string, replicas: number, history: number): Promise<void> {
    const deadline = Date.now() + this.bucketTimeoutMs;
    for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
      this.assertOpen();
      try {
        await this.adminJs.views.kv(name, { replicas, history, allow_direct: false });
        return;
      } catch (error) {
        if (!isTransientNatsError(error) || Date.now() + wait > deadline) {
          throw kvErrorFromNats(error, `bucket ${name}`);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopWatches();
    this.stopStatus();
    if (this.ownsConnection) await this.nc.close();
  }

  /** What the store's buckets use of it. */
  private readonly host: NatsKvBucketHost = {
    run: (what, operation) => this.run(what, operation),
    assertOpen: () => {
      this.assertOpen();
    },
    track: (watch) => this.watches.add(watch),
    untrack: (watch) => this.watches.delete(watch),
    timeoutMs: () => this.timeoutMs,
    onHandlerError: (error) => {
      this.onHandlerError(error);
    },
  };

  /** Runs one KV operation, mapping nats.js failures to KvError. */
  private async run<T>(what: string, operation: () => Promise<T>): Promise<T> {
    this.assertOpen();
    try {
      return await operation();
    } catch (error) {
      throw kvErrorFromNats(error, what);
    }
  }

  private assertOpen(): void {
    if (this.closed || this.nc.isClosed()) {
      throw new KvError(KvErrorCodes.unavailable, "the KV connection is closed");
    }
  }

  private stopWatches(): void {
    for (const watch of [...this.watches]) watch.stop();
  }

  /** Listens for reconnects; returns the function that stops listening. */
  private reopenWatchesOnReconnect(): () => void {
    const status = this.nc.status();
    void (async () => {
      for await (const event of status) {
        if (event.type === Events.Reconnect) for (const watch of this.watches) watch.reopen();
      }
    })();
    // nats.js hands out a QueuedIterator, whose stop() removes the listener at once.
    return () => {
      (status as { stop?: () => void }).stop?.();
    };
  }
}

/** The same limits as the in-memory store, so both refuse the same options. */
function checkBucketOptions(replicas: number, history: number): void {
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) {
    throw new TypeError(`invalid replicas ${replicas}: 1 to 5`);
  }
  if (!Number.isInteger(history) || history < 1 || history > 64) {
    throw new TypeError(`invalid history ${history}: 1 to 64`);
  }
}
