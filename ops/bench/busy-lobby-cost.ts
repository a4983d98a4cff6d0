import { loadConfig, resultSessionsOf } from "../config.ts";
import { lobbyOptionsOf } from "../node/node-kinds.ts";
import { lobbyKind } from "../../actors/lobby/index.ts";
import { ActorSystem, settle } from "../../actors/runtime/index.ts";
import {
  KvActorStore,
  MemoryKvServer,
  cryptoRandom,
  realScheduler,
  type KvBucket,
  type KvStore,
} from "../../fleet/index.ts";

/** The cost of one op on a lobby and the bytes of its snapshot. */
export interface LobbyOpCost {
  readonly microsPerOp: number;
  readonly snapshotBytes: number;
  /** Bytes the op wrote to the snapshot bucket (its snapshot, and any record of answers stored apart). */
  readonly bytesWrittenPerOp: number;
}

/** The same op on a fresh lobby and on a lobby many sessions passed through. */
export interface BusyLobbyCost {
  readonly sessions: number;
  readonly fresh: LobbyOpCost;
  readonly busy: LobbyOpCost;
  /** busy µs per op / fresh µs per op (target ≤ 1.2). */
  readonly ratio: number;
  /** Writes to the snapshot bucket while the sessions joined and left (ops, and records stored apart). */
  readonly churnWrites: number;
}

/** What the bench counts of the snapshot bucket's writes. */
interface WriteCount {
  writes: number;
  bytes: number;
}

/** `bucket`, counting its writes and their bytes into `count`. */
function counted(bucket: KvBucket, count: WriteCount): KvBucket {
  const tally = (value: Uint8Array): void => {
    count.writes++;
    count.bytes += value.length;
  };
  return {
    name: bucket.name,
    get: (key) => bucket.get(key),
    create: (key, value) => {
      tally(value);
      return bucket.create(key, value);
    },
    update: (key, value, revision) => {
      tally(value);
      return bucket.update(key, value, revision);
    },
    put: (key, value) => {
      tally(value);
      return bucket.put(key, value);
    },
    delete: (key, opts) => {
      count.writes++;
      return bucket.delete(key, opts);
    },
    keys: (prefix) => bucket.keys(prefix),
    watch: (opts, onEntry) => bucket.watch(opts, onEntry),
  };
}

/** The runtime over an embedded node's in-memory store, its snapshot writes counted. */
async function benchSystem(): Promise<{
  kv: KvStore;
  snapshots: KvBucket;
  system: ActorSystem;
  count: WriteCount;
}> {
  const config = loadConfig({ logLevel: "silent" }, {});
  const kv = new MemoryKvServer().connect();
  const count: WriteCount = { writes: 0, bytes: 0 };
  const snapshots = counted(await kv.bucket("lobbies"), count);
  const scheduler = realScheduler();
  const store = new KvActorStore({
    claims: await kv.bucket("claims"),
    snapshots,
    identity: { node: "bench", incarnation: "bench" },
    scheduler,
  });
  const node = { canOpenRoom: () => true, draining: () => false, mayAct: () => true };
  const outbox = { push: () => undefined };
  const system = new ActorSystem({
    store,
    outbox,
    scheduler,
    random: cryptoRandom(),
    node,
    resultSessions: resultSessionsOf(config),
  });
  system.register(lobbyKind(lobbyOptionsOf(config)));
  return { kv, snapshots, system, count };
}

/**
 * The host toggling ready, one request at a time, on a fresh lobby and on one that `sessions` sessions
 * joined and left just before (well within the answers' retention): the runtime and the embedded node's
 * store (in-memory KV, snapshots packed as for NATS), no sockets, so what differs is the snapshot work
 * each op carries for the answers kept. Rounds of the two alternate, and each keeps its best round: the
 * machine may be shared, and a burst of load then hits both alike rather than one.
 */
export async function busyLobbyCost(sessions: number, ops: number): Promise<BusyLobbyCost> {
  const { kv, snapshots, system, count } = await benchSystem();
  /** A lobby `through` sessions joined and left; returns its op (the host's ready, toggled). */
  const lobby = async (code: string, through: number): Promise<() => Promise<unknown>> => {
    const key = `lobby/${code}`;
    const host = { id: `${code}-host`, name: "Host" };
    await system.spawn(key, { code, host, public: false, metadata: null });
    for (let s = 0; s < through; s++) {
      const player = { id: `${code}-p${s}`, name: `P${s}` };
      const session = `${code}-s${s}`;
      await system.ask(key, { type: "join", player }, { request: { session, id: 1 } });
      await system.ask(key, { type: "leave", player: player.id }, { request: { session, id: 2 } });
    }
    const session = `${code}-host-session`;
    let id = 0;
    return () => {
      id++;
      return system.ask(
        key,
        { type: "ready", player: host.id, ready: id % 2 === 0 },
        { request: { session, id } },
      );
    };
  };
  const fresh = { op: await lobby("FRESH1", 0), key: "lobby/FRESH1", best: Infinity, bytes: 0, ops: 0 };
  const before = count.writes;
  const busy = { op: await lobby("BUSY01", sessions), key: "lobby/BUSY01", best: Infinity, bytes: 0, ops: 0 };
  const churnWrites = count.writes - before;
  for (const each of [fresh, busy]) for (let n = 0; n < 200; n++) await each.op(); // warm-up
  // CPU time, not wall time: the best of many short rounds of each, alternating (a short round is more
  // likely to run while the shared cores are quiet).
  const round = 50;
  for (let r = 0; r < Math.max(1, Math.floor(ops / round)); r++) {
    for (const each of [fresh, busy]) {
      const bytes = count.bytes;
      const started = process.cpuUsage();
      for (let n = 0; n < round; n++) await each.op();
      const used = process.cpuUsage(started);
      each.best = Math.min(each.best, (used.user + used.system) / round);
      each.bytes += count.bytes - bytes;
      each.ops += round;
    }
  }
  const cost = async (each: typeof fresh): Promise<LobbyOpCost> => ({
    microsPerOp: Number(each.best.toFixed(1)),
    snapshotBytes: (await snapshots.get(each.key))?.value.length ?? 0,
    bytesWrittenPerOp: Math.round(each.bytes / each.ops),
  });
  const result = {
    sessions,
    fresh: await cost(fresh),
    busy: await cost(busy),
    ratio: Number((busy.best / fresh.best).toFixed(2)),
    churnWrites,
  };
  await settle();
  system.close();
  await kv.close();
  return result;
}
