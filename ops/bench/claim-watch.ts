import {
  NatsKvStore,
  connectNats,
  decodeClaim,
  decodeNodeRecord,
  isTombstone,
  type KvWatch,
} from "../../fleet/index.ts";
import type { NatsLauncher } from "../nats/index.ts";

/**
 * Watches the `claims` bucket: for each of `codes`, the time (ms after `killedAt()`) its claim first named
 * a node other than `victim`; and the `nodes` bucket, for the time the victim was declared dead.
 */
export async function watchClaims(
  nats: NatsLauncher,
  victim: string,
  codes: ReadonlySet<string>,
  killedAt: () => number,
): Promise<{ at: Map<string, number>; death: () => DeathSeen; stop(): Promise<void> }> {
  const nc = await connectNats({ servers: nats.urls });
  const kv = new NatsKvStore(nc, { replicas: nats.size, ownsConnection: true });
  const at = new Map<string, number>();
  let declaredAt: number | undefined;
  const watches: KvWatch[] = [];
  try {
    const claims = await kv.bucket("claims");
    watches.push(
      claims.watch({ prefix: "lobby/" }, (entry) => {
        const code = entry.key.slice("lobby/".length);
        if (entry.operation !== "PUT" || !codes.has(code) || at.has(code)) return;
        const now = performance.now();
        if (now >= killedAt() && decodeClaim(entry.value).node !== victim) at.set(code, now - killedAt());
      }),
    );
    // The victim's record: the tombstone a survivor writes over it once it declares the victim dead.
    const nodes = await kv.bucket("nodes");
    watches.push(
      nodes.watch({ prefix: victim }, (entry) => {
        if (entry.key !== victim || entry.operation !== "PUT") return;
        const now = performance.now();
        if (now >= killedAt() && isTombstone(decodeNodeRecord(entry.value))) declaredAt ??= now;
      }),
    );
  } catch (error) {
    for (const watch of watches) watch.stop();
    await kv.close();
    throw error;
  }
  return {
    at,
    death: () => (declaredAt === undefined ? {} : { declaredMs: Math.round(declaredAt - killedAt()) }),
    async stop() {
      for (const watch of watches) watch.stop();
      await kv.close();
    },
  };
}

/** The victim's death as the `nodes` bucket shows it: the first tombstone over its record, ms from the kill. */
export interface DeathSeen {
  readonly declaredMs?: number;
}
