import { randomBytes } from "node:crypto";
import { createNodeClient, type FoyerClient } from "../../gateway/index.ts";
import { benchNodeFlags, benchToken, benchTokenKeys } from "./bench-key.ts";
import { startNats, type NatsLauncher } from "../nats/index.ts";
import { startNodeProcess, type NodeProcess } from "../node/node-process.ts";
import { gcNodeArgs, memoryAfterGc, sampleCounters, windowOf, type ScaleWindow } from "./scale-counters.ts";
import {
  figuresOf,
  formatRun,
  formatSummary,
  spreadOf,
  type ScaleFigures,
  type Spread,
} from "./scale-figures.ts";

export type { ScaleFigures } from "./scale-figures.ts";

/**
 * `foyer bench --scenario scale`: the same load on fleets of 1 to N node processes over one 3-server NATS
 * cluster (R3), counting what does not depend on the machine's cores — CPU-seconds per 1,000 ops, NATS
 * messages and bytes per op, KV writes per op and per stream, memory per lobby — and the idle cost per node.
 * Every figure of the load has the idle fleet's rate over as long taken out, so a node's heartbeats, sweeps
 * and watches are not charged to the ops. docs/capacity.md multiplies these counts out; it does not
 * extrapolate timings.
 */
export interface ScaleBenchOptions {
  /** Fleet sizes, in order (default 1..5). */
  readonly sizes: readonly number[];
  /** Pairs of players looping create / join / ready / leave / leave (5 ops a round). */
  readonly pairs: number;
  /** Ops per fleet size and run (rounded up to whole rounds of every pair). */
  readonly ops: number;
  /** Runs of each size, each on a fresh NATS cluster: the figures are printed with their spread. */
  readonly repeats: number;
  /** Idle lobbies (one connected host each) spread over the nodes, for memory per lobby. */
  readonly idleLobbies: number;
  /** Seconds of an idle fleet, to count what heartbeats cost and what the load's figures leave out. */
  readonly idleSeconds: number;
  /** Snapshot buckets of each fleet (`--snapshot-shards` of its nodes); the nodes' default when absent. */
  readonly snapshotShards?: number;
  /**
   * Seconds the fleet sits idle before each memory reading (0: none). With 95 the idle lobbies and their
   * hosts' registry entries have passivated (a minute idle, swept every 30 s; their snapshots stay in
   * NATS) and each node has handed back what the opening's garbage took: what a lobby left open costs.
   */
  readonly settleSeconds?: number;
  readonly json: boolean;
}

/** The figures of one size: each run's, and each figure's median and range over them. */
export interface ScaleSizeFigures {
  readonly nodes: number;
  readonly runs: readonly ScaleFigures[];
  readonly spread: Record<string, Spread>;
}

/** Runs the scale bench over each fleet size `repeats` times and prints each run and the summary (or JSON). */
export async function runScaleBench(options: ScaleBenchOptions): Promise<ScaleSizeFigures[]> {
  const sizes: ScaleSizeFigures[] = [];
  for (const size of options.sizes) {
    const runs: ScaleFigures[] = [];
    for (let repeat = 0; repeat < options.repeats; repeat++) {
      // A fresh NATS cluster per run: the last run's killed nodes would otherwise be failed over here.
      const nats = await startNats({ servers: 3, monitoring: true });
      try {
        const measured = await measureSize(nats, size, options);
        runs.push(measured);
        if (!options.json) console.log(formatRun(measured));
      } finally {
        await nats.stop();
      }
    }
    sizes.push({ nodes: size, runs, spread: spreadOf(runs) });
  }
  if (options.json) console.log(JSON.stringify({ scenario: "scale", ...options, json: undefined, sizes }));
  else
    console.log(`\nmedian (min–max) over ${options.repeats} run(s) of each size:\n${formatSummary(sizes)}`);
  return sizes;
}

async function measureSize(
  nats: NatsLauncher,
  size: number,
  options: ScaleBenchOptions,
): Promise<ScaleFigures> {
  const prefix = `s${size}-${randomBytes(3).toString("hex")}`;
  const nodes: NodeProcess[] = [];
  const clients: FoyerClient[] = [];
  try {
    startNodes(nats, size, prefix, nodes, options.snapshotShards);
    const urls = await Promise.all(nodes.map((node) => node.url));
    const connect = async (node: number, player: string): Promise<FoyerClient> => {
      const token = benchToken(`${prefix}-${player}`, player);
      const client = createNodeClient({ urls: [urls[node % size] ?? ""], token, callTimeoutMs: 30_000 });
      clients.push(client);
      await client.connect();
      return client;
    };
    // Let every node see every other's heartbeat before counting anything.
    await sleep(2_000);
    const idle = await measureIdle(nats, nodes, options.idleSeconds);
    // Each node opens a few lobbies first: what its first lobbies cost once (code compiled, modules
    // loaded on first use, 1.5–2 MiB a node) is no idle lobby's, and counted per lobby it grew the
    // figure by about 4 KiB for every node of the fleet.
    await openIdleLobbies(connect, warmUpLobbiesPerNode * size, "warm");
    await sleep((options.settleSeconds ?? 0) * 1000);
    const memoryBefore = await memoryAfterGc(nodes);
    await openIdleLobbies(connect, options.idleLobbies, "idle");
    await sleep((options.settleSeconds ?? 0) * 1000);
    const memoryAfter = await memoryAfterGc(nodes);
    const { ops, load } = await measureOps(nodes, nats, connect, options);
    return figuresOf({
      nodes: size,
      ops,
      idle,
      load,
      memoryBefore,
      memoryAfter,
      idleLobbies: options.idleLobbies,
    });
  } finally {
    for (const client of clients) client.close();
    for (const node of nodes) node.child.kill(profileFlags.length > 0 ? "SIGINT" : "SIGKILL");
    await Promise.all(nodes.map((node) => node.exited));
  }
}

/** Connects a player's client to the `node`-th node (modulo the fleet's size). */
type Connect = (node: number, player: string) => Promise<FoyerClient>;

/** The fleet's node processes, started at once (they find each other through NATS). */
function startNodes(
  nats: NatsLauncher,
  size: number,
  prefix: string,
  nodes: NodeProcess[],
  snapshotShards: number | undefined,
): void {
  const sessionSecret = randomBytes(24).toString("base64url");
  for (let i = 0; i < size; i++) {
    nodes.push(
      startNodeProcess({
        id: `${prefix}-n${i + 1}`,
        natsUrls: nats.urls,
        natsReplicas: 3,
        tokenKeys: benchTokenKeys,
        sessionSecret,
        flags: {
          ...benchNodeFlags,
          ...(snapshotShards === undefined ? {} : { "snapshot-shards": String(snapshotShards) }),
        },
        nodeArgs: [...gcNodeArgs, ...profileFlags],
      }),
    );
  }
}

// FOYER_BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR": extra flags for the node processes; they are
// then stopped with SIGINT, so that each exits and writes its profile. Each window's `monotonicUs` (in
// the JSON output) is on the clock the profiles' samples are stamped with, so a profile can be cut to it.
const profileFlags = (process.env.FOYER_BENCH_NODE_FLAGS ?? "").split(" ").filter((f) => f !== "");

/** Idle: heartbeats, sweeps and watches only; the window the load's figures have taken out. */
async function measureIdle(
  nats: NatsLauncher,
  nodes: readonly NodeProcess[],
  idleSeconds: number,
): Promise<ScaleWindow> {
  const before = await sampleCounters(nats, nodes);
  await sleep(idleSeconds * 1000);
  return windowOf(before, await sampleCounters(nats, nodes));
}

/** Lobbies each node opens before the memory figure's first reading. */
const warmUpLobbiesPerNode = 50;

/** Idle lobbies, one connected host each, spread over the nodes (for memory per lobby). */
async function openIdleLobbies(connect: Connect, idleLobbies: number, players: string): Promise<void> {
  for (let i = 0; i < idleLobbies; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, idleLobbies - i) }, async (_, j) => {
        const host = await connect(i + j, `${players}-${i + j}`);
        await host.create();
      }),
    );
  }
}

/** Ops: pairs on the node that owns their lobby loop create / join / ready / leave / leave. */
async function measureOps(
  nodes: readonly NodeProcess[],
  nats: NatsLauncher,
  connect: Connect,
  options: ScaleBenchOptions,
): Promise<{ ops: number; load: ScaleWindow }> {
  const rounds = Math.max(1, Math.ceil(options.ops / (options.pairs * 5)));
  const pairs = await Promise.all(
    Array.from(
      { length: options.pairs },
      async (_, p) => [await connect(p, `host-${p}`), await connect(p, `guest-${p}`)] as const,
    ),
  );
  const before = await sampleCounters(nats, nodes);
  await Promise.all(
    pairs.map(async ([host, guest]) => {
      for (let round = 0; round < rounds; round++) {
        const { code } = await host.create();
        await guest.join(code);
        await host.ready(true);
        await guest.leave();
        await host.leave();
      }
    }),
  );
  const load = windowOf(before, await sampleCounters(nats, nodes));
  return { ops: options.pairs * rounds * 5, load };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
