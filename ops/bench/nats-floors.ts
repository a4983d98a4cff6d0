import { NatsBus, NatsKvStore, connectNats, isNoResponders } from "../../fleet/index.ts";
import type { NatsLauncher } from "../nats/index.ts";
import { summarize, timeUntil, type LatencySummary } from "./latency.ts";

const payload = new Uint8Array(300).fill(7);
const echoSubject = "foyer.bench.echo";

/**
 * Core NATS request/reply round trips between two servers of the cluster (a requester on server 0, a
 * responder on server 1), over the Bus the nodes forward messages with: the floor under a forwarded ask.
 */
export async function natsRequestFloor(
  nats: NatsLauncher,
  concurrency: number,
  seconds: number,
): Promise<LatencySummary> {
  const responder = new NatsBus(await connectNats({ servers: nats.url(1) }), { ownsConnection: true });
  const requester = new NatsBus(await connectNats({ servers: nats.url(0) }), { ownsConnection: true });
  try {
    responder.subscribe(echoSubject, (msg) => msg.respond(msg.data));
    await responder.flush();
    await untilAnswered(requester);
    const latencies: number[] = [];
    const deadline = performance.now() + seconds * 1000;
    const request = (): Promise<Uint8Array> => requester.request(echoSubject, payload, { timeoutMs: 2_000 });
    await Promise.all(Array.from({ length: concurrency }, () => timeUntil(deadline, request, latencies)));
    return summarize(latencies);
  } finally {
    await Promise.all([requester.close(), responder.close()]);
  }
}

/** A subscription reaches the other servers a moment after flush (docs/fleet.md): wait for it. */
async function untilAnswered(bus: NatsBus): Promise<void> {
  for (let tries = 0; ; tries++) {
    try {
      await bus.request(echoSubject, payload, { timeoutMs: 1_000 });
      return;
    } catch (error) {
      if (!isNoResponders(error) || tries > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * Compare-and-set updates of a 300-byte value in an R3 bucket, one key per loop, through the same
 * NatsKvStore the nodes write claims and snapshots with: the floor under every acknowledged change.
 */
export async function kvUpdateFloor(
  nats: NatsLauncher,
  concurrency: number,
  seconds: number,
): Promise<LatencySummary> {
  const nc = await connectNats({ servers: nats.urls });
  const kv = new NatsKvStore(nc, { replicas: Math.min(3, nats.size), ownsConnection: true });
  try {
    const bucket = await kv.bucket("bench-floor");
    const latencies: number[] = [];
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, loop) => {
        const key = `floor/${loop}`;
        let revision = await bucket.put(key, payload);
        const update = async (): Promise<void> => {
          revision = await bucket.update(key, payload, revision);
        };
        await timeUntil(deadline, update, latencies);
      }),
    );
    return summarize(latencies);
  } finally {
    await kv.close();
  }
}
