import { NatsBus, NatsKvStore, connectNats, isNoResponders } from "../../fleet/index.ts";
import type { NatsLauncher } from "../nats/index.ts";
import { echoFloor } from "./echo-floor.ts";
import { summarize, timeUntil, type LatencySummary } from "./latency.ts";

const payload = new Uint8Array(300).fill(7);
const echoSubject = "foyer.bench.echo";

/** Core NATS request/reply between two servers of the cluster: a requester on one, an echo on another. */
export interface NatsEcho {
  /** One request of 300 bytes, answered. */
  roundTrip(): Promise<void>;
  close(): Promise<void>;
}

/** A requester on server 0 and a responder on server 1, over the Bus the nodes forward messages with. */
export async function startNatsEcho(nats: NatsLauncher): Promise<NatsEcho> {
  const responder = new NatsBus(await connectNats({ servers: nats.url(1) }), { ownsConnection: true });
  let requester: NatsBus | undefined;
  const close = async (): Promise<void> => {
    await Promise.all([requester?.close(), responder.close()]);
  };
  try {
    requester = new NatsBus(await connectNats({ servers: nats.url(0) }), { ownsConnection: true });
    responder.subscribe(echoSubject, (msg) => msg.respond(msg.data));
    await responder.flush();
    await untilAnswered(requester);
  } catch (error) {
    await close();
    throw error;
  }
  const asking = requester;
  return {
    async roundTrip() {
      await asking.request(echoSubject, payload, { timeoutMs: 2_000 });
    },
    close,
  };
}

/**
 * Core NATS request/reply round trips between two servers of the cluster (`startNatsEcho`): the floor
 * under a forwarded ask.
 */
export async function natsRequestFloor(
  nats: NatsLauncher,
  concurrency: number,
  seconds: number,
): Promise<LatencySummary> {
  const echo = await startNatsEcho(nats);
  try {
    const latencies: number[] = [];
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, () => timeUntil(deadline, () => echo.roundTrip(), latencies)),
    );
    return summarize(latencies);
  } finally {
    await echo.close();
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

/** One key's compare-and-set update of the floor's value, each from the revision the last one wrote. */
type KeyUpdate = () => Promise<void>;

/**
 * Runs `use` with updates of keys of an R3 bucket (`bench-floor`), on a NATS connection of its own that
 * is closed afterwards. Each key's first value is put when its update is made, untimed.
 */
async function withFloorBucket<T>(
  nats: NatsLauncher,
  use: (updateOf: (key: string) => Promise<KeyUpdate>) => Promise<T>,
): Promise<T> {
  const nc = await connectNats({ servers: nats.urls });
  const kv = new NatsKvStore(nc, { replicas: Math.min(3, nats.size), ownsConnection: true });
  try {
    const bucket = await kv.bucket("bench-floor");
    return await use(async (key) => {
      let revision = await bucket.put(key, payload);
      return async () => {
        revision = await bucket.update(key, payload, revision);
      };
    });
  } finally {
    await kv.close();
  }
}

/**
 * Compare-and-set updates of a 300-byte value in an R3 bucket, one key per loop, through the same
 * NatsKvStore the nodes write claims and snapshots with: the floor under every acknowledged change.
 */
export function kvUpdateFloor(
  nats: NatsLauncher,
  concurrency: number,
  seconds: number,
): Promise<LatencySummary> {
  return withFloorBucket(nats, async (updateOf) => {
    const latencies: number[] = [];
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, loop) =>
        timeUntil(deadline, await updateOf(`floor/${loop}`), latencies),
      ),
    );
    return summarize(latencies);
  });
}

/**
 * A one-write op with nothing else on its path: a raw `ws` frame in, one compare-and-set update of a
 * 300-byte value in an R3 bucket (the KV floor's write), the frame back out. The echo and KV floors,
 * measured as one round trip instead of added up.
 */
export function echoThenKvFloor(
  nats: NatsLauncher,
  concurrency: number,
  seconds: number,
): Promise<LatencySummary> {
  return withFloorBucket(nats, async (updateOf) => {
    const updates = await Promise.all(Array.from({ length: concurrency }, (_, i) => updateOf(`echo/${i}`)));
    // The echo floor opens exactly `concurrency` connections, numbered from 0.
    return echoFloor(concurrency, seconds, (connection) => {
      const update = updates[connection];
      if (update === undefined) throw new RangeError(`no key for connection ${connection}`);
      return update;
    });
  });
}
