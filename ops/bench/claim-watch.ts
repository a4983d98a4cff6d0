import { NatsKvStore, connectNats, decodeClaim, type KvWatch } from "../../fleet/index.ts";
import type { NatsLauncher } from "../nats/index.ts";

/**
 * Watches the `claims` bucket: for each of `codes`, the time (ms after `killedAt()`) its claim first named
 * a node other than `victim`.
 */
export async function watchClaims(
  nats: NatsLauncher,
  victim: string,
  codes: ReadonlySet<string>,
  killedAt: () => number,
): Promise<{ at: Map<string, number>; stop(): Promise<void> }> {
  const nc = await connectNats({ servers: nats.urls });
  const kv = new NatsKvStore(nc, { replicas: nats.size, ownsConnection: true });
  const at = new Map<string, number>();
  let watch: KvWatch | undefined;
  try {
    const claims = await kv.bucket("claims");
    watch = claims.watch({ prefix: "lobby/" }, (entry) => {
      const code = entry.key.slice("lobby/".length);
      if (entry.operation !== "PUT" || !codes.has(code) || at.has(code)) return;
      const now = performance.now();
      if (now >= killedAt() && decodeClaim(entry.value).node !== victim) at.set(code, now - killedAt());
    });
  } catch (error) {
    await kv.close();
    throw error;
  }
  const running = watch;
  return {
    at,
    async stop() {
      running.stop();
      await kv.close();
    },
  };
}
