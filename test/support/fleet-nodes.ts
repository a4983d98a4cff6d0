import { z } from "zod";
import { ActorSystem, seededRandom, type ActorKind } from "../../actors/runtime/index.ts";
import {
  FleetRouter,
  KvActorStore,
  Migrations,
  NodeEndpoint,
  migrationHostOf,
  realScheduler,
} from "../../fleet/index.ts";
import type { Bus, KvBucket, KvStore, NodeIdentity } from "../../fleet/index.ts";

const messageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("add"), by: z.number() }).strict(),
  z.object({ type: z.literal("get") }).strict(),
]);

/** A counter kind named `kind`: `add` answers the new total, `get` the current one. */
export function counterKind(kind: string): ActorKind<{ n: number }, z.infer<typeof messageSchema>> {
  return {
    kind,
    schemaVersion: 1,
    create: () => ({ state: { n: 0 }, effects: [{ type: "reply", value: "made" }] }),
    parse: (m) => {
      const r = messageSchema.safeParse(m);
      return r.success ? r.data : undefined;
    },
    handle(state, message) {
      switch (message.type) {
        case "add": {
          const n = state.n + message.by;
          return { state: { n }, effects: [{ type: "reply", value: n }] };
        }
        case "get":
          return { state, effects: [{ type: "reply", value: state.n }] };
        case "timer":
        case "restored":
          return { state, effects: [] };
      }
    },
    upgrade: (state) => z.object({ n: z.number() }).parse(state),
    idle: () => true,
  };
}

/** One fleet node of a test: runtime, store, router and endpoint over the given KV and bus connections. */
export interface FleetNode {
  readonly id: string;
  readonly identity: NodeIdentity;
  readonly system: ActorSystem;
  readonly router: FleetRouter;
  readonly store: KvActorStore;
  readonly endpoint: NodeEndpoint;
  readonly claims: KvBucket;
  /** Live migration to and from this node (it serves adoptions once started). */
  readonly migrations: Migrations;
  /** Every `moved` the node told its members: `key → url`. */
  readonly movedTold: string[];
  /** Keys this node's migrations froze, with how long each stayed frozen. */
  readonly frozen: { key: string; ms: number }[];
  /** Whether this node takes adoptions (a test turns it off to play a target that refuses). */
  adopting: boolean;
  /** Whether this node takes spawns other nodes place on it (off: a full node). */
  hosting: boolean;
  close(): Promise<void>;
}

/**
 * Starts a node with `counter/` (created by spawn) and `tally/` (created on demand) actors.
 * `claimsView` lets a test change what the router sees of the claims bucket (a silent watch);
 * `buckets` prefixes the bucket names, so tests sharing a NATS cluster do not share claims.
 */
export async function startFleetNode(
  id: string,
  kv: KvStore,
  bus: Bus,
  opts: {
    replicas?: number;
    buckets?: string;
    claimsView?: (claims: KvBucket) => KvBucket;
    /** More kinds to register (a test's own). */
    kinds?: readonly ActorKind<never, never>[];
  } = {},
): Promise<FleetNode> {
  const identity = { node: id, incarnation: `${id}-${Math.random().toString(36).slice(2, 8)}` };
  const bucketOpts = opts.replicas === undefined ? {} : { replicas: opts.replicas };
  const claims = await kv.bucket(`${opts.buckets ?? ""}claims`, bucketOpts);
  const snapshots = await kv.bucket(`${opts.buckets ?? ""}lobbies`, bucketOpts);
  const scheduler = realScheduler();
  const store = new KvActorStore({ claims, snapshots, identity, scheduler });
  const router = new FleetRouter({ claims: opts.claimsView?.(claims) ?? claims, bus, identity, scheduler });
  router.start();
  const system = new ActorSystem({
    store,
    outbox: { push: () => undefined },
    scheduler,
    random: seededRandom(id.length),
    node: { canOpenRoom: () => true, draining: () => false, mayAct: () => true },
    router,
    askTimeoutMs: 5_000,
    passivateAfterMs: 600_000,
  })
    .register(counterKind("counter"))
    .register(counterKind("tally"), { createOnDemand: true });
  for (const kind of opts.kinds ?? []) system.register(kind);
  const node = { adopting: true, hosting: true };
  const endpoint = new NodeEndpoint({ bus, node: id, system, maySpawn: () => node.hosting });
  await endpoint.start();
  const movedTold: string[] = [];
  const frozen: { key: string; ms: number }[] = [];
  const migrations = new Migrations(
    migrationHostOf({
      identity,
      bus,
      system,
      store,
      router,
      playersHere: () => [],
      moved: (key, url) => {
        movedTold.push(`${key} → ${url}`);
      },
      mayAdopt: () => node.adopting,
      frozeFor: (key, ms) => {
        frozen.push({ key, ms });
      },
    }),
    1_000,
  );
  const adoption = await migrations.serve(id);
  return {
    id,
    identity,
    system,
    router,
    store,
    endpoint,
    claims,
    migrations,
    movedTold,
    frozen,
    get adopting() {
      return node.adopting;
    },
    set adopting(on: boolean) {
      node.adopting = on;
    },
    get hosting() {
      return node.hosting;
    },
    set hosting(on: boolean) {
      node.hosting = on;
    },
    close: async () => {
      adoption.stop();
      endpoint.stop();
      router.stop();
      system.close();
      await Promise.all([kv.close(), bus.close()]);
    },
  };
}
