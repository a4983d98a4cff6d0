import type { NatsConnection } from "nats";
import { NatsKvStore, connectNats, type KvBucket } from "../../fleet/index.ts";
import type { NatsLauncher } from "../nats/index.ts";

/** How long a KV watch took to deliver again after its nats-server was killed. */
export interface WatchRecovery {
  /** From the kill -9 to the watch delivering the first value written after it, ms. */
  readonly recoveryMs: number;
  /** The `server_name` killed (the one the watcher was connected to). */
  readonly killedServer: string;
  /** Whether it led the JetStream meta group, or the bucket's stream (each lengthens recovery). */
  readonly wasMetaLeader: boolean;
  readonly wasStreamLeader: boolean;
}

const bucketName = "bench-watch";
const recoveryTimeoutMs = 30_000;
const writeEveryMs = 10;

/**
 * Kills (SIGKILL) the nats-server a KV watcher is connected to while a writer on another server keeps
 * writing, and measures until the watch delivers a value written after the kill; then restarts the
 * server. The victim is a server that leads neither the meta group nor the bucket's stream when there is
 * one (the common case: a node's connection, not a leader, dies), and the result says which it was.
 * Needs a launcher started with `monitoring: true`.
 */
export async function watchRecovery(nats: NatsLauncher): Promise<WatchRecovery> {
  const replicas = Math.min(3, nats.size);
  const setup = await connectNats({ servers: nats.urls });
  const setupKv = new NatsKvStore(setup, { replicas, ownsConnection: true });
  await setupKv.bucket(bucketName);
  const streamLeader = await streamLeaderOf(setup);
  await setupKv.close();
  const metaLeader = await nats.metaLeader();
  const victim = pickVictim(nats, [metaLeader, streamLeader]);
  const other = (victim + 1) % nats.size;
  const watcher = await openPinned(nats, victim, replicas);
  const writer = await openPinned(nats, other, replicas);
  try {
    const recoveryMs = await measure(nats, victim, watcher.bucket, writer.bucket);
    await nats.restart(victim);
    const name = nats.config(victim).name;
    return {
      recoveryMs: Number(recoveryMs.toFixed(1)),
      killedServer: name,
      wasMetaLeader: name === metaLeader,
      wasStreamLeader: name === streamLeader,
    };
  } finally {
    await Promise.all([watcher.kv.close(), writer.kv.close()]);
  }
}

async function measure(
  nats: NatsLauncher,
  victim: number,
  watched: KvBucket,
  written: KvBucket,
): Promise<number> {
  let firstAfterKill = Number.POSITIVE_INFINITY;
  let resolveSeen: (at: number) => void = () => undefined;
  const seen = new Promise<number>((resolve) => (resolveSeen = resolve));
  let live: () => void = () => undefined;
  const watching = new Promise<void>((resolve) => (live = resolve));
  const watch = watched.watch({ prefix: "recovery/" }, (entry) => {
    live();
    if (Number(new TextDecoder().decode(entry.value)) >= firstAfterKill) resolveSeen(performance.now());
  });
  const writer = keepWriting(written);
  try {
    await watching;
    firstAfterKill = writer.next();
    const killedAt = performance.now();
    await nats.kill(victim, "SIGKILL");
    return (await within(seen, recoveryTimeoutMs, "the watch did not recover")) - killedAt;
  } finally {
    await writer.stop();
    watch.stop();
  }
}

/**
 * Writes 0, 1, 2… to `recovery/k` every few ms until stopped, ignoring failures (while a server dies
 * some writes fail or time out); `next()` is the value the next write will carry.
 */
function keepWriting(bucket: KvBucket): { next(): number; stop(): Promise<void> } {
  const state = { next: 0, stopped: false };
  const loop = (async () => {
    while (!state.stopped) {
      const value = String(state.next++);
      await bucket.put("recovery/k", new TextEncoder().encode(value)).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, writeEveryMs));
    }
  })();
  return {
    next: () => state.next,
    stop: async () => {
      state.stopped = true;
      await loop;
    },
  };
}

/** `promise`, or a rejection after `ms` (the timer is cleared either way). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A KV store whose connection goes to server `i` first (and elsewhere only when that one dies). */
async function openPinned(
  nats: NatsLauncher,
  i: number,
  replicas: number,
): Promise<{ kv: NatsKvStore; bucket: KvBucket }> {
  const servers = [nats.url(i), ...nats.urls.filter((_, j) => j !== i)];
  const nc = await connectNats({ servers, natsOptions: { noRandomize: true } });
  const kv = new NatsKvStore(nc, { replicas, ownsConnection: true });
  return { kv, bucket: await kv.bucket(bucketName) };
}

async function streamLeaderOf(nc: NatsConnection): Promise<string | undefined> {
  const jsm = await nc.jetstreamManager();
  return (await jsm.streams.info(`KV_${bucketName}`)).cluster?.leader;
}

/** The first server whose name is not among `leaders`; server 0 when every one leads something. */
function pickVictim(nats: NatsLauncher, leaders: readonly (string | undefined)[]): number {
  for (let i = 0; i < nats.size; i++) {
    if (!leaders.includes(nats.config(i).name)) return i;
  }
  return 0;
}
