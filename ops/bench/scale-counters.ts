import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { NatsLauncher } from "../nats/index.ts";
import type { NodeProcess } from "../node/node-process.ts";

/**
 * The scale bench's counters: what the nats-servers received and wrote, and what every process spent, read
 * at one moment. Two samples make a window; an idle window's rates are taken out of the ops window's.
 */
export interface ScaleSample {
  /** performance.now() when the sample was read. */
  readonly atMs: number;
  /** Messages and bytes every server received (from clients and routes). */
  readonly msgs: number;
  readonly bytes: number;
  /** Stream sequence numbers used, by KV bucket name (one per write). */
  readonly writesByBucket: ReadonlyMap<string, number>;
  /** CPU seconds (user + system) of the Foyer node processes and of the nats-servers. */
  readonly cpuFoyer: number;
  readonly cpuNats: number;
  /** CPU seconds of each Foyer node process, in the fleet's order. */
  readonly cpuByNode: readonly number[];
  /** The monotonic clock (µs, as a node's CPU profile stamps its samples) when the sample was read. */
  readonly monotonicUs: number;
}

/** What happened between two samples. */
export interface ScaleWindow {
  readonly seconds: number;
  readonly msgs: number;
  readonly bytes: number;
  readonly writesByBucket: ReadonlyMap<string, number>;
  readonly cpuFoyer: number;
  readonly cpuNats: number;
  readonly cpuByNode: readonly number[];
  /** The window on the monotonic clock (µs): a node's CPU profile cut to it holds this window's samples. */
  readonly monotonicUs: { readonly from: number; readonly to: number };
}

/** Node arguments that let the bench force a full GC in a node (SIGUSR2) before reading its memory. */
export const gcNodeArgs: readonly string[] = [
  "--expose-gc",
  "--import",
  fileURLToPath(new URL("./peers/gc-on-signal.mjs", import.meta.url)),
];

const clockTicks = 100; // USER_HZ on Linux: /proc/<pid>/stat counts CPU time in 1/100 s

export async function sampleCounters(
  nats: NatsLauncher,
  nodes: readonly NodeProcess[],
): Promise<ScaleSample> {
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
    for (const [stream, seq] of await streamSequences(`http://${host}:${httpPort}`)) {
      // Every replica reports a stream: take the furthest sequence any of them has seen.
      lastSeq.set(stream, Math.max(lastSeq.get(stream) ?? 0, seq));
    }
  }
  const writesByBucket = new Map([...lastSeq].map(([stream, seq]) => [stream.slice("KV_".length), seq]));
  const cpu = cpuSeconds(nodes, nats);
  return {
    atMs: performance.now(),
    msgs,
    bytes,
    writesByBucket,
    cpuFoyer: cpu.byNode.reduce((a, b) => a + b, 0),
    cpuNats: cpu.nats,
    cpuByNode: cpu.byNode,
    monotonicUs: Number(process.hrtime.bigint() / 1000n),
  };
}

/** The KV streams' last sequences as one server's `/jsz` reports them. */
async function streamSequences(monitor: string): Promise<Map<string, number>> {
  const jsz = (await (await fetch(`${monitor}/jsz?accounts=true&streams=true`)).json()) as {
    account_details?: { stream_detail?: { name: string; state: { last_seq: number } }[] }[];
  };
  const seqs = new Map<string, number>();
  for (const account of jsz.account_details ?? []) {
    for (const stream of account.stream_detail ?? []) {
      if (stream.name.startsWith("KV_")) seqs.set(stream.name, stream.state.last_seq);
    }
  }
  return seqs;
}

export function windowOf(before: ScaleSample, after: ScaleSample): ScaleWindow {
  const writesByBucket = new Map<string, number>();
  for (const [bucket, seq] of after.writesByBucket) {
    writesByBucket.set(bucket, seq - (before.writesByBucket.get(bucket) ?? 0));
  }
  return {
    seconds: (after.atMs - before.atMs) / 1000,
    msgs: after.msgs - before.msgs,
    bytes: after.bytes - before.bytes,
    writesByBucket,
    cpuFoyer: after.cpuFoyer - before.cpuFoyer,
    cpuNats: after.cpuNats - before.cpuNats,
    cpuByNode: after.cpuByNode.map((cpu, i) => cpu - (before.cpuByNode[i] ?? 0)),
    monotonicUs: { from: before.monotonicUs, to: after.monotonicUs },
  };
}

/** `load` with what an idle fleet does over as long (`idle`'s rates × `load`'s seconds) taken out. */
export function withoutIdle(load: ScaleWindow, idle: ScaleWindow): ScaleWindow {
  const share = load.seconds / idle.seconds;
  const writesByBucket = new Map<string, number>();
  for (const [bucket, writes] of load.writesByBucket) {
    writesByBucket.set(bucket, writes - (idle.writesByBucket.get(bucket) ?? 0) * share);
  }
  return {
    seconds: load.seconds,
    msgs: load.msgs - idle.msgs * share,
    bytes: load.bytes - idle.bytes * share,
    writesByBucket,
    cpuFoyer: load.cpuFoyer - idle.cpuFoyer * share,
    cpuNats: load.cpuNats - idle.cpuNats * share,
    cpuByNode: load.cpuByNode.map((cpu, i) => cpu - (idle.cpuByNode[i] ?? 0) * share),
    monotonicUs: load.monotonicUs,
  };
}

export function totalWrites(window: ScaleWindow): number {
  let total = 0;
  for (const writes of window.writesByBucket.values()) total += writes;
  return total;
}

function cpuSeconds(nodes: readonly NodeProcess[], nats: NatsLauncher): { byNode: number[]; nats: number } {
  const of = (pid: number | undefined): number => {
    if (pid === undefined) return 0;
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  };
  return {
    byNode: nodes.map((node) => of(node.child.pid)),
    nats: Array.from({ length: nats.size }, (_, i) => of(nats.pid(i))).reduce((a, b) => a + b, 0),
  };
}

/** The node processes' heap and RSS in KiB, summed, each read after a full GC (nodes run with gcNodeArgs). */
export async function memoryAfterGc(
  nodes: readonly NodeProcess[],
): Promise<{ heapKiB: number; rssKiB: number }> {
  for (const node of nodes) node.child.kill("SIGUSR2");
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  let heap = 0;
  let rss = 0;
  for (const node of nodes) {
    const text = await (await fetch(`${await node.admin}/metrics`)).text();
    const read = (name: string): number => {
      const value = Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1]);
      if (!Number.isFinite(value)) throw new Error(`node ${node.id}'s /metrics has no ${name}`);
      return value;
    };
    heap += read("nodejs_heap_size_used_bytes");
    rss += read("process_resident_memory_bytes");
  }
  return { heapKiB: heap / 1024, rssKiB: rss / 1024 };
}
