import { loadConfig, resultSessionsOf } from "../config.ts";
import { lobbyOptionsOf } from "../node/node-kinds.ts";
import { lobbyKind } from "../../actors/lobby/index.ts";
import { ActorSystem, settle } from "../../actors/runtime/index.ts";
import { KvActorStore, MemoryKvServer, cryptoRandom, realScheduler } from "../../fleet/index.ts";

/** The cost of one op on a lobby and the bytes of its snapshot. */
export interface LobbyOpCost {
  readonly microsPerOp: number;
  readonly snapshotBytes: number;
}

/** The same op on a fresh lobby and on a lobby many sessions passed through. */
export interface BusyLobbyCost {
  readonly sessions: number;
  readonly fresh: LobbyOpCost;
  readonly busy: LobbyOpCost;
  /** busy µs per op / fresh µs per op (target ≤ 1.2). */
  readonly ratio: number;
}

/**
 * The host toggling ready, one request at a time, on a fresh lobby and on one that `sessions` sessions
 * joined and left just before (well within the answers' retention): the runtime and the embedded node's
 * store (in-memory KV, snapshots packed as for NATS), no sockets, so what differs is the snapshot work
 * each op carries for the answers kept.
 */
export async function busyLobbyCost(sessions: number, ops: number): Promise<BusyLobbyCost> {
  const config = loadConfig({ logLevel: "silent" }, {});
  const kv = new MemoryKvServer().connect();
  const snapshots = await kv.bucket("lobbies");
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
  const measure = async (code: string, through: number): Promise<LobbyOpCost> => {
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
    const toggle = (id: number): Promise<unknown> =>
      system.ask(key, { type: "ready", player: host.id, ready: id % 2 === 0 }, { request: { session, id } });
    for (let id = 1; id <= 200; id++) await toggle(id); // warm-up
    // CPU time, not wall time, and the best of five rounds: the machine may be shared.
    let microsPerOp = Infinity;
    const round = Math.max(1, Math.floor(ops / 5));
    for (let r = 0, id = 201; r < 5; r++) {
      const started = process.cpuUsage();
      for (let n = 0; n < round; n++) await toggle(id++);
      const used = process.cpuUsage(started);
      microsPerOp = Math.min(microsPerOp, (used.user + used.system) / round);
    }
    const entry = await snapshots.get(key);
    return { microsPerOp, snapshotBytes: entry?.value.length ?? 0 };
  };
  // Each measured twice, alternating, and the better run kept.
  const fresh1 = await measure("FRESH1", 0);
  const busy1 = await measure("BUSY01", sessions);
  const fresh2 = await measure("FRESH2", 0);
  const busy2 = await measure("BUSY02", sessions);
  await settle();
  system.close();
  await kv.close();
  const fresh = fresh1.microsPerOp <= fresh2.microsPerOp ? fresh1 : fresh2;
  const busy = busy1.microsPerOp <= busy2.microsPerOp ? busy1 : busy2;
  return { sessions, fresh, busy, ratio: Number((busy.microsPerOp / fresh.microsPerOp).toFixed(2)) };
}
