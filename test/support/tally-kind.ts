import { z } from "zod";
import { ActorSystem, seededRandom, type ActorKind } from "../../actors/runtime/index.ts";
import { KvActorStore, realScheduler, type KvBucket, type KvStore } from "../../fleet/index.ts";

const messageSchema = z.union([
  z.object({ type: z.literal("add"), by: z.number() }).strict(),
  z.object({ type: z.literal("end") }).strict(),
]);

/**
 * A counter that ends itself, for tests of where answers are kept: `add` answers the new total (`by: 0`
 * changes nothing and answers the total), `end` answers and stops it, so its removal must take its
 * records along.
 */
export const tallyKind: ActorKind<{ n: number }, z.infer<typeof messageSchema>> = {
  kind: "tally",
  schemaVersion: 1,
  create: () => ({ state: { n: 0 }, effects: [] }),
  parse: (m) => {
    const r = messageSchema.safeParse(m);
    return r.success ? r.data : undefined;
  },
  handle: (state, message) => {
    if (message.type === "end") return { state, effects: [{ type: "reply" }, { type: "stop" }] };
    if (message.type !== "add") return { state, effects: [] };
    if (message.by === 0) return { state, effects: [{ type: "reply", value: state.n }] };
    const n = state.n + message.by;
    return { state: { n }, effects: [{ type: "reply", value: n }] };
  },
  upgrade: (state) => z.object({ n: z.number() }).parse(state),
  idle: () => true,
};

/** A node of the tally kind over `kv`: its store on `snapshots`, as `identity`. */
export interface TallyNode {
  readonly system: ActorSystem;
  readonly store: KvActorStore;
  readonly snapshots: KvBucket;
  close(): Promise<void>;
}

/** Runs the tally kind over `kv` (in memory or NATS), its snapshots in `snapshots`; `close` closes `kv`. */
export async function tallyNode(
  kv: KvStore,
  snapshots: KvBucket,
  identity: { node: string; incarnation: string },
  seed: number,
): Promise<TallyNode> {
  const store = new KvActorStore({
    claims: await kv.bucket("claims"),
    snapshots,
    identity,
    scheduler: realScheduler(),
  });
  const system = new ActorSystem({
    store,
    outbox: { push: () => undefined },
    scheduler: realScheduler(),
    random: seededRandom(seed),
    node: { canOpenRoom: () => true, draining: () => false, mayAct: () => true },
  }).register(tallyKind);
  return {
    system,
    store,
    snapshots,
    close: async () => {
      system.close();
      await kv.close();
    },
  };
}
