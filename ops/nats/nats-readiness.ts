import { createConnection } from "node:net";
import type { NatsConnection } from "nats";
import { type NatsAuth, NatsKvStore, connectNats } from "../../fleet/index.ts";

/** The prefix of the buckets readiness makes (replicas = the number of servers) and deletes again. */
export const readyBucket = "foyer_ready";
/** JetStream's "no suitable peers for placement". */
const noSuitablePeers = 10005;
/** How long a just-made cluster may lack peers for an R-n bucket before it counts as a bad bootstrap. */
const badBootstrapMs = 4_000;

/**
 * A just-made cluster that will not become ready: now and then (here about 1 start in 10 when three
 * nats-server 2.10.27 start at once, 1 in 80 when started one after another) the servers form a
 * JetStream meta group without one of them and never add it, so no R3 stream can be placed. The launcher
 * then starts a new cluster.
 */
export class BadBootstrapError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "BadBootstrapError";
  }
}

/** What to wait for. */
export interface ReadinessOptions {
  /** Server name, for messages. */
  readonly name: string;
  readonly url: string;
  /** Replicas of the probe bucket: the cluster's size. */
  readonly replicas: number;
  readonly deadline: number;
  /** The cluster was just made: give up early on a bad bootstrap (BadBootstrapError). */
  readonly fresh: boolean;
  /** Why the server is not running, or undefined while it runs: waiting stops at once when it exits. */
  readonly exited: () => string | undefined;
  /** Credentials, for a server that asks for them. */
  readonly auth?: NatsAuth;
}

/**
 * Resolves when a new bucket with `replicas` copies can be made and written through the server at `url`:
 * its JetStream is up and, in a cluster, the meta leader counts every server as a live peer (a restarted
 * server accepts writes to existing streams well before that). Retries with a 300 ms JetStream timeout
 * (the default 5 s one makes the first try hang: NATS-NOTES) until the deadline; never a fixed sleep.
 * The probe bucket is deleted afterwards.
 */
export async function waitNatsReady(options: ReadinessOptions): Promise<void> {
  const bucketName = `${readyBucket}_${options.name}_${Date.now().toString(36)}`;
  let probe: Probe | undefined;
  let lastError: unknown;
  let placementFailingSince: number | undefined;
  try {
    for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
      const exited = options.exited();
      if (exited !== undefined) throw new Error(`nats-server ${options.name} exited (${exited})`);
      try {
        probe ??= await openProbe(options);
        const bucket = await probe.store.bucket(bucketName);
        await bucket.put("probe", new Uint8Array());
        await probe.deleteStream(`KV_${bucketName}`);
        return;
      } catch (error) {
        lastError = error;
        if (probe?.nc.isClosed() === true) probe = undefined; // reconnect is off for the probe
        placementFailingSince =
          apiErrorCode(error) === noSuitablePeers ? (placementFailingSince ?? Date.now()) : undefined;
      }
      const lacksPeers =
        placementFailingSince !== undefined && Date.now() - placementFailingSince > badBootstrapMs;
      if (options.fresh && lacksPeers) {
        throw new BadBootstrapError(`nats-server ${options.name}: the JetStream meta group lacks a peer`, {
          cause: lastError,
        });
      }
      if (Date.now() > options.deadline) {
        const message = `nats-server ${options.name} was not ready in time`;
        throw options.fresh
          ? new BadBootstrapError(message, { cause: lastError })
          : new Error(message, { cause: lastError });
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  } finally {
    await probe?.close();
  }
}

/** Resolves when something accepts TCP connections on host:port (or throws at the deadline). */
export async function waitListening(
  host: string,
  port: number,
  deadline: number,
  exited: () => string | undefined,
): Promise<void> {
  for (;;) {
    const listening = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ host, port }, () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => {
        resolve(false);
      });
    });
    if (listening) return;
    const status = exited();
    if (status !== undefined) throw new Error(`nats-server on port ${port} exited (${status})`);
    if (Date.now() > deadline) throw new Error(`nothing listens on ${host}:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface Probe {
  readonly nc: NatsConnection;
  readonly store: NatsKvStore;
  deleteStream(name: string): Promise<void>;
  close(): Promise<void>;
}

async function openProbe(options: ReadinessOptions): Promise<Probe> {
  const nc = await connectNats({
    ...options.auth,
    servers: options.url,
    name: "foyer-ready-probe",
    waitOnFirstConnect: false,
    natsOptions: { reconnect: false, timeout: 1_000, ignoreClusterUpdates: true },
  });
  const timeout = { timeoutMs: 300, bucketTimeoutMs: 300 };
  const store = new NatsKvStore(nc, { replicas: options.replicas, ...timeout });
  return {
    nc,
    store,
    deleteStream: async (name) => {
      await (await nc.jetstreamManager({ timeout: 1_000 })).streams.delete(name).catch(() => false);
    },
    close: async () => {
      await store.close();
      await nc.close();
    },
  };
}

/** The JetStream `api_error.err_code` somewhere in an error's cause chain. */
function apiErrorCode(error: unknown): number | undefined {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    const code = (e as { api_error?: { err_code?: number } }).api_error?.err_code;
    if (code !== undefined) return code;
  }
  return undefined;
}
