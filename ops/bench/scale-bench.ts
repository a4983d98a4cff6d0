import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createNodeClient, type FoyerClient } from "../../gateway/index.ts";
import { benchToken, benchTokenKeys } from "./bench-key.ts";
import { startNats, type NatsLauncher } from "../nats/index.ts";
import { startNodeProcess, type NodeProcess } from "../node/node-process.ts";

/**
 * `foyer bench --scenario scale`: the same load on fleets of 1 to N node processes over one 3-server NATS
 * cluster (R3), counting what does not depend on the machine's cores — CPU-seconds per 1,000 ops, NATS
 * messages and bytes per op, KV writes per op, memory per lobby — and the idle cost (heartbeats) per node.
 * docs/capacity.md multiplies these counts out; it does not extrapolate timings.
 */
export interface ScaleBenchOptions {
  /** Fleet sizes, in order (default 1..5). */
  readonly sizes: readonly number[];
  /** Pairs of players looping create / join / ready / leave / leave (5 ops a round). */
  readonly pairs: number;
  readonly rounds: number;
  /** Idle lobbies (one connected host each) spread over the nodes, for memory per lobby. */
  readonly idleLobbies: number;
  /** Seconds of an idle fleet, to count what heartbeats cost. */
  readonly idleSeconds: number;
  readonly json: boolean;
}

/** The figures of one fleet size. */
export interface ScaleFigures {
  readonly nodes: number;
  readonly ops: number;
  readonly opsSeconds: number;
  /** CPU time (user + system) of the Foyer node processes and of the nats-servers, per 1,000 ops. */
  readonly cpuSecondsPer1000Ops: { readonly foyer: number; readonly nats: number };
  /** Messages and bytes the nats-servers received (clients and routes), per op, idle traffic taken out. */
  readonly natsMsgsPerOp: number;
  readonly natsBytesPerOp: number;
  /** KV writes (stream sequence numbers used in every bucket), per op, idle writes taken out. */
  readonly kvWritesPerOp: number;
  /** The same by bucket (`claims`, `lobbies`, `nodes`, …): which stream the load lands on. */
  readonly kvWritesPerOpByBucket: Readonly<Record<string, number>>;
  /** What an idle fleet costs per node and second: heartbeats and watches. */
  readonly idlePerNodeSecond: { readonly natsMsgs: number; readonly kvWrites: number };
  /** Resident memory the node processes gained per idle lobby with its connected host. */
  readonly memoryKiBPerLobby: number;
}

const clockTicks = 100; // USER_HZ on Linux: /proc/<pid>/stat counts CPU time in 1/100 s

/** Runs the scale bench over each fleet size in turn and prints each size's figures (or all as JSON). */
export async function runScaleBench(options: ScaleBenchOptions): Promise<ScaleFigures[]> {
  const figures: ScaleFigures[] = [];
  for (const size of options.sizes) {
    // A fresh NATS cluster per size: the last size's killed nodes would otherwise be failed over here.
    const nats = await startNats({ servers: 3, monitoring: true });
    try {
      const measured = await measureSize(nats, size, options);
      figures.push(measured);
      if (!options.json) console.log(formatFigures(measured));
    } finally {
      await nats.stop();
    }
  }
  if (options.json) console.log(JSON.stringify({ scenario: "scale", ...options, json: undefined, figures }));
  return figures;
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
    startNodes(nats, size, prefix, nodes);
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
    const idle = await measureIdle(nats, options.idleSeconds);
    const memory = await measureMemory(nodes, connect, options.idleLobbies);
    const load = await measureOps(nodes, nats, connect, options);
    return figuresOf(size, options, idle, memory, load);
  } finally {
    for (const client of clients) client.close();
    for (const node of nodes) node.child.kill("SIGKILL");
    await Promise.all(nodes.map((node) => node.exited));
  }
}

/** Connects a player's client to the `node`-th node (modulo the fleet's size). */
type Connect = (node: number, player: string) => Promise<FoyerClient>;

/** What an idle fleet sends and writes a second. */
interface IdleRates {
  readonly msgsPerS: number;
  readonly writesPerS: number;
}

/** What the load did: the counters and CPU before and after, and how long it ran. */
interface OpsLoad {
  readonly ops: number;
  readonly opsSeconds: number;
  readonly before: NatsCounters;
  readonly after: NatsCounters;
  readonly cpuBefore: { foyer: number; nats: number };
  readonly cpuAfter: { foyer: number; nats: number };
}

/** The fleet's node processes, started at once (they find each other through NATS). */
function startNodes(nats: NatsLauncher, size: number, prefix: string, nodes: NodeProcess[]): void {
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
          "rate-per-second": "1000000",
          "rate-burst": "1000000",
          "max-connections-per-ip": "100000",
          "lobby-grace-seconds": "0",
          "log-level": "silent",
        },
      }),
    );
  }
}

/** Idle: heartbeats only. */
async function measureIdle(nats: NatsLauncher, idleSeconds: number): Promise<IdleRates> {
  const idleBefore = await natsCounters(nats);
  await sleep(idleSeconds * 1000);
  const idleAfter = await natsCounters(nats);
  return {
    msgsPerS: (idleAfter.msgs - idleBefore.msgs) / idleSeconds,
    writesPerS: (idleAfter.kvWrites - idleBefore.kvWrites) / idleSeconds,
  };
}

/** Memory: idle lobbies, one connected host each, spread over the nodes; the RSS before and after. */
async function measureMemory(
  nodes: readonly NodeProcess[],
  connect: Connect,
  idleLobbies: number,
): Promise<{ rssBefore: number; rssAfter: number }> {
  const rssBefore = nodes.reduce((sum, node) => sum + rssKiB(node), 0);
  for (let i = 0; i < idleLobbies; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, idleLobbies - i) }, async (_, j) => {
        const host = await connect(i + j, `idle-${i + j}`);
        await host.create();
      }),
    );
  }
  await sleep(1_000);
  const rssAfter = nodes.reduce((sum, node) => sum + rssKiB(node), 0);
  return { rssBefore, rssAfter };
}

/** Ops: pairs on the node that owns their lobby loop create / join / ready / leave / leave. */
async function measureOps(
  nodes: readonly NodeProcess[],
  nats: NatsLauncher,
  connect: Connect,
  options: ScaleBenchOptions,
): Promise<OpsLoad> {
  const pairs = await Promise.all(
    Array.from(
      { length: options.pairs },
      async (_, p) => [await connect(p, `host-${p}`), await connect(p, `guest-${p}`)] as const,
    ),
  );
  const cpuBefore = cpuSeconds(nodes, nats);
  const before = await natsCounters(nats);
  const started = performance.now();
  await Promise.all(
    pairs.map(async ([host, guest]) => {
      for (let round = 0; round < options.rounds; round++) {
        const { code } = await host.create();
        await guest.join(code);
        await host.ready(true);
        await guest.leave();
        await host.leave();
      }
    }),
  );
  const opsSeconds = (performance.now() - started) / 1000;
  const after = await natsCounters(nats);
  const cpuAfter = cpuSeconds(nodes, nats);
  return { ops: options.pairs * options.rounds * 5, opsSeconds, before, after, cpuBefore, cpuAfter };
}

/** The figures of one fleet size, per op (idle traffic taken out) and per idle lobby. */
function figuresOf(
  size: number,
  options: ScaleBenchOptions,
  idle: IdleRates,
  memory: { rssBefore: number; rssAfter: number },
  load: OpsLoad,
): ScaleFigures {
  const { ops, opsSeconds, before, after, cpuBefore, cpuAfter } = load;
  const round3 = (n: number): number => Math.round(n * 1000) / 1000;
  return {
    nodes: size,
    ops,
    opsSeconds: round3(opsSeconds),
    cpuSecondsPer1000Ops: {
      foyer: round3(((cpuAfter.foyer - cpuBefore.foyer) * 1000) / ops),
      nats: round3(((cpuAfter.nats - cpuBefore.nats) * 1000) / ops),
    },
    natsMsgsPerOp: round3((after.msgs - before.msgs - idle.msgsPerS * opsSeconds) / ops),
    natsBytesPerOp: Math.round((after.bytes - before.bytes) / ops),
    kvWritesPerOp: round3((after.kvWrites - before.kvWrites - idle.writesPerS * opsSeconds) / ops),
    kvWritesPerOpByBucket: Object.fromEntries(
      [...after.byBucket].map(([bucket, seq]) => [
        bucket,
        round3((seq - (before.byBucket.get(bucket) ?? 0)) / ops),
      ]),
    ),
    idlePerNodeSecond: { natsMsgs: round3(idle.msgsPerS / size), kvWrites: round3(idle.writesPerS / size) },
    memoryKiBPerLobby: round3((memory.rssAfter - memory.rssBefore) / options.idleLobbies),
  };
}

function formatFigures(f: ScaleFigures): string {
  return (
    `${f.nodes} node(s): ${f.ops} ops in ${f.opsSeconds} s — CPU s/1,000 ops foyer ${f.cpuSecondsPer1000Ops.foyer}, ` +
    `nats ${f.cpuSecondsPer1000Ops.nats}; NATS msgs/op ${f.natsMsgsPerOp}, bytes/op ${f.natsBytesPerOp}; ` +
    `KV writes/op ${f.kvWritesPerOp}; idle per node·s: ${f.idlePerNodeSecond.natsMsgs} msgs, ` +
    `${f.idlePerNodeSecond.kvWrites} KV writes; memory ${f.memoryKiBPerLobby} KiB/lobby`
  );
}

/** Messages and bytes every server received, and KV writes (stream sequences used) over all buckets. */
interface NatsCounters {
  readonly msgs: number;
  readonly bytes: number;
  readonly kvWrites: number;
  /** Stream sequence numbers used, by bucket name. */
  readonly byBucket: ReadonlyMap<string, number>;
}

async function natsCounters(nats: NatsLauncher): Promise<NatsCounters> {
  let msgs = 0;
  let bytes = 0;
  const lastSeq = new Map<string, number>();
  for (let i = 0; i < nats.size; i++) {
    const { host, httpPort } = nats.config(i);
    if (httpPort === undefined) throw new Error("the scale bench needs the servers' monitoring ports");
    const varz = (await (await fetch(`http://${host}:${httpPort}/varz`)).json()) as {
      in_msgs: number;
      in_bytes: number;
    };
    msgs += varz.in_msgs;
    bytes += varz.in_bytes;
    const jsz = (await (await fetch(`http://${host}:${httpPort}/jsz?accounts=true&streams=true`)).json()) as {
      account_details?: { stream_detail?: { name: string; state: { last_seq: number } }[] }[];
    };
    // Every replica reports a stream: take the furthest sequence any of them has seen.
    for (const account of jsz.account_details ?? []) {
      for (const stream of account.stream_detail ?? []) {
        if (!stream.name.startsWith("KV_")) continue;
        lastSeq.set(stream.name, Math.max(lastSeq.get(stream.name) ?? 0, stream.state.last_seq));
      }
    }
  }
  let kvWrites = 0;
  const byBucket = new Map<string, number>();
  for (const [stream, seq] of lastSeq) {
    kvWrites += seq;
    byBucket.set(stream.slice("KV_".length), seq);
  }
  return { msgs, bytes, kvWrites, byBucket };
}

/** CPU seconds (user + system) used so far by the node processes and by the nats-servers. */
function cpuSeconds(nodes: readonly NodeProcess[], nats: NatsLauncher): { foyer: number; nats: number } {
  const of = (pid: number | undefined): number => {
    if (pid === undefined) return 0;
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  };
  return {
    foyer: nodes.reduce((sum, node) => sum + of(node.child.pid), 0),
    nats: Array.from({ length: nats.size }, (_, i) => of(nats.pid(i))).reduce((a, b) => a + b, 0),
  };
}

function rssKiB(node: NodeProcess): number {
  const status = readFileSync(`/proc/${node.child.pid ?? 0}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
