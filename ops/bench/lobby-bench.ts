import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import type { FoyerClient } from "../../gateway/index.ts";
import { loadConfig } from "../config.ts";
import { lobbyOptionsOf } from "../node/node-kinds.ts";
import { lobbyKind } from "../../actors/lobby/index.ts";
import { playerKind } from "../../actors/player/index.ts";
import { ActorSystem, settle } from "../../actors/runtime/index.ts";
import { KvActorStore, MemoryKvServer, cryptoRandom, realScheduler } from "../../fleet/index.ts";
import { busyLobbyCost, type BusyLobbyCost } from "./busy-lobby-cost.ts";
import { echoFloor } from "./echo-floor.ts";
import { startEmbeddedBenchNode } from "./embedded-bench-node.ts";
import { summarize, timed, type LatencySummary } from "./latency.ts";

/** Options of `foyer bench --scenario lobby`. */
export interface LobbyBenchOptions {
  readonly clients: number;
  readonly seconds: number;
  readonly idleLobbies: number;
  readonly json: boolean;
}

/** The figures the lobby bench prints. */
export interface LobbyBenchResult {
  readonly scenario: "lobby";
  readonly clients: number;
  readonly seconds: number;
  readonly ops: number;
  readonly opsPerSecond: number;
  readonly lobby: LatencySummary;
  readonly echo: LatencySummary;
  readonly p50VsEcho: number;
  readonly idleLobbies: number;
  readonly bytesPerIdleLobby: number;
  readonly bytesPerPlayerEntry: number;
  readonly busyLobby: BusyLobbyCost;
}

/**
 * N clients loop create / join / ready / leave against an embedded node over real sockets; in the same
 * run, the floor (a raw `ws` echo round trip at the same concurrency) and the heap bytes per idle lobby
 * of 8 members (lobby state, measured on the runtime without sockets), and what an op costs on a lobby
 * that 1,000 sessions passed through against a fresh one (the answers it keeps for retries).
 */
export async function runLobbyBench(options: LobbyBenchOptions): Promise<LobbyBenchResult> {
  const say = (line: string): void => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  say(
    `lobby bench: ${options.clients} clients, ${options.seconds} s each for the echo floor and the lobby load`,
  );
  const echo = await echoFloor(options.clients, options.seconds);
  say(
    `  ws echo floor     p50 ${echo.p50Ms.toFixed(3)} ms  p99 ${echo.p99Ms.toFixed(3)} ms  (${echo.count} round trips)`,
  );
  const load = await lobbyLoad(options.clients, options.seconds);
  const lobby = summarize(load.latencies);
  const opsPerSecond = load.latencies.length / load.elapsedS;
  say(
    `  lobby ops         p50 ${lobby.p50Ms.toFixed(3)} ms  p99 ${lobby.p99Ms.toFixed(3)} ms  ${opsPerSecond.toFixed(0)} ops/s`,
  );
  const memory = await idleLobbyBytes(options.idleLobbies);
  const bytesPerIdleLobby = memory.lobby;
  say(
    `  idle lobby (8 members): ${bytesPerIdleLobby.toFixed(0)} heap bytes each, over ${options.idleLobbies} lobbies`,
  );
  say(
    `  player registry entry: ${memory.player.toFixed(0)} heap bytes per player while live (passivates when idle)`,
  );
  const busy = await busyLobbyCost(1000, 2000);
  say(
    `  op on a fresh lobby      ${busy.fresh.microsPerOp.toFixed(1)} µs/op  snapshot ${busy.fresh.snapshotBytes} bytes  written ${busy.fresh.bytesWrittenPerOp} B/op`,
  );
  say(
    `  op after ${busy.sessions} sessions ${busy.busy.microsPerOp.toFixed(1)} µs/op  snapshot ${busy.busy.snapshotBytes} bytes  written ${busy.busy.bytesWrittenPerOp} B/op  (${busy.ratio}× fresh, target ≤ 1.2)`,
  );
  const result: LobbyBenchResult = {
    scenario: "lobby",
    clients: options.clients,
    seconds: options.seconds,
    ops: load.latencies.length,
    opsPerSecond: Math.round(opsPerSecond),
    lobby,
    echo,
    p50VsEcho: Number((lobby.p50Ms / echo.p50Ms).toFixed(2)),
    idleLobbies: options.idleLobbies,
    bytesPerIdleLobby: Math.round(bytesPerIdleLobby),
    bytesPerPlayerEntry: Math.round(memory.player),
    busyLobby: busy,
  };
  say(`  p50 / echo p50 = ${result.p50VsEcho} (target ≤ 1.5); bytes per idle lobby target ≤ 4096`);
  if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  return result;
}

async function lobbyLoad(
  clients: number,
  seconds: number,
): Promise<{ latencies: number[]; elapsedS: number }> {
  const node = await startEmbeddedBenchNode();
  const connected: FoyerClient[] = await Promise.all(
    Array.from({ length: clients }, (_, i) => node.connect(`bench-${i}`, `B${i}`)),
  );
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const pairs = Math.max(1, Math.floor(clients / 2));
  await Promise.all(
    Array.from({ length: pairs }, async (_, p) => {
      const host = connected[2 * p];
      if (!host) return;
      const guest = connected[2 * p + 1] ?? host;
      while (performance.now() < deadline) {
        const { code } = await timed(() => host.create(), latencies);
        if (guest !== host) await timed(() => guest.join(code), latencies);
        await timed(() => host.ready(true), latencies);
        if (guest !== host) await timed(() => guest.leave(), latencies);
        await timed(() => host.leave(), latencies);
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  await node.stop();
  return { latencies, elapsedS };
}

/**
 * Heap bytes per idle lobby of 8 members: the lobby's live actor plus its snapshot and claim in the
 * embedded store — lobby state, no sockets. The members' player-registry entries are per player, not
 * per lobby; they are measured apart (`bytesPerPlayerEntry`) and passivate when idle.
 */
async function idleLobbyBytes(count: number): Promise<{ lobby: number; player: number }> {
  const gc = exposeGc();
  const lobbyOnly = await memoryRun(count, false, gc);
  const withPlayers = await memoryRun(count, true, gc);
  return { lobby: lobbyOnly, player: (withPlayers - lobbyOnly) / 8 };
}

async function memoryRun(count: number, players: boolean, gc: () => void): Promise<number> {
  const config = loadConfig({ logLevel: "silent" }, {});
  const scheduler = realScheduler();
  const kv = new MemoryKvServer().connect();
  const store = new KvActorStore({
    claims: await kv.bucket("claims"),
    snapshots: await kv.bucket("lobbies"),
    identity: { node: "bench", incarnation: "bench" },
    scheduler,
  });
  const node = { canOpenRoom: () => true, draining: () => false, mayAct: () => true };
  const outbox = { push: () => undefined };
  const system = new ActorSystem({ store, outbox, scheduler, random: cryptoRandom(), node });
  system.register(lobbyKind(lobbyOptionsOf(config)));
  if (players) system.register(playerKind({}), { createOnDemand: true });
  const fill = async (from: number, to: number): Promise<void> => {
    for (let i = from; i < to; i++) {
      const code = `L${i.toString(36).toUpperCase().padStart(5, "0")}`;
      const host = { id: `p${i}-0`, name: "Player 0" };
      await system.spawn(`lobby/${code}`, { code, host, public: false, metadata: null });
      for (let m = 1; m < 8; m++) {
        await system.ask(`lobby/${code}`, {
          type: "join",
          player: { id: `p${i}-${m}`, name: `Player ${m}` },
        });
      }
    }
    await settle();
  };
  // Warm up the code paths first so JIT and the first maps do not count as lobby state.
  await fill(0, 50);
  gc();
  const before = process.memoryUsage().heapUsed;
  await fill(50, 50 + count);
  gc();
  const after = process.memoryUsage().heapUsed;
  system.close();
  await kv.close();
  return (after - before) / count;
}

function exposeGc(): () => void {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  return () => {
    gc();
    gc();
  };
}
