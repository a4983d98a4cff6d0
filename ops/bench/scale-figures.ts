import { totalWrites, withoutIdle, type ScaleWindow } from "./scale-counters.ts";

/** The figures of one run of one fleet size. */
export interface ScaleFigures {
  readonly nodes: number;
  readonly ops: number;
  readonly opsSeconds: number;
  /** CPU time (user + system) of the Foyer node processes and of the nats-servers, per 1,000 ops, idle taken out. */
  readonly cpuSecondsPer1000Ops: { readonly foyer: number; readonly nats: number };
  /** Messages and bytes the nats-servers received (clients and routes), per op, idle traffic taken out. */
  readonly natsMsgsPerOp: number;
  readonly natsBytesPerOp: number;
  /** KV writes (stream sequence numbers used in every bucket), per op, idle writes taken out. */
  readonly kvWritesPerOp: number;
  /** The same by bucket (`claims`, `lobbies-00`, `nodes`, …): which stream the load lands on. */
  readonly kvWritesPerOpByBucket: Readonly<Record<string, number>>;
  /**
   * How evenly the snapshot writes spread over the snapshot streams: the busiest stream's writes over an
   * even share (1 = perfectly even), and how many streams took any.
   */
  readonly snapshotSpread: { readonly streams: number; readonly busiestOverShare: number };
  /** What an idle fleet costs per node and second: heartbeats, watches and sweeps. */
  readonly idlePerNodeSecond: {
    readonly natsMsgs: number;
    readonly kvWrites: number;
    readonly foyerCpuMs: number;
  };
  /** Each node process's CPU-seconds per 1,000 ops of the whole load, idle taken out: how evenly it spread. */
  readonly cpuSecondsPer1000OpsByNode: readonly number[];
  /** What the node processes gained per idle lobby with its connected host, read after a full GC. */
  readonly memoryKiBPerLobby: { readonly heap: number; readonly rss: number };
}

/** What one run measured, before it is turned into figures. */
export interface ScaleRun {
  readonly nodes: number;
  readonly ops: number;
  readonly idle: ScaleWindow;
  readonly load: ScaleWindow;
  readonly memoryBefore: { readonly heapKiB: number; readonly rssKiB: number };
  readonly memoryAfter: { readonly heapKiB: number; readonly rssKiB: number };
  readonly idleLobbies: number;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** Snapshot buckets are `lobbies` (one) or `lobbies-00` … (sharded by key hash). */
const isSnapshotBucket = (bucket: string): boolean => /^lobbies(-\d+)?$/.test(bucket);

export function figuresOf(run: ScaleRun): ScaleFigures {
  const { ops, nodes, idle } = run;
  const load = withoutIdle(run.load, idle);
  const snapshotWrites = [...load.writesByBucket]
    .filter(([bucket]) => isSnapshotBucket(bucket))
    .map(([, w]) => w);
  const snapshotTotal = snapshotWrites.reduce((a, b) => a + b, 0);
  const busiest = Math.max(0, ...snapshotWrites);
  return {
    nodes,
    ops,
    opsSeconds: round3(load.seconds),
    cpuSecondsPer1000Ops: {
      foyer: round3((load.cpuFoyer * 1000) / ops),
      nats: round3((load.cpuNats * 1000) / ops),
    },
    cpuSecondsPer1000OpsByNode: load.cpuByNode.map((cpu) => round3((cpu * 1000) / ops)),
    natsMsgsPerOp: round3(load.msgs / ops),
    natsBytesPerOp: Math.round(load.bytes / ops),
    kvWritesPerOp: round3(totalWrites(load) / ops),
    kvWritesPerOpByBucket: Object.fromEntries(
      [...load.writesByBucket].sort(([a], [b]) => a.localeCompare(b)).map(([b, w]) => [b, round3(w / ops)]),
    ),
    snapshotSpread: {
      streams: snapshotWrites.filter((w) => w > 0).length,
      busiestOverShare: snapshotTotal > 0 ? round3((busiest * snapshotWrites.length) / snapshotTotal) : 0,
    },
    idlePerNodeSecond: {
      natsMsgs: round3(idle.msgs / idle.seconds / nodes),
      kvWrites: round3(totalWrites(idle) / idle.seconds / nodes),
      foyerCpuMs: round3((idle.cpuFoyer * 1000) / idle.seconds / nodes),
    },
    memoryKiBPerLobby: {
      heap: round3((run.memoryAfter.heapKiB - run.memoryBefore.heapKiB) / run.idleLobbies),
      rss: round3((run.memoryAfter.rssKiB - run.memoryBefore.rssKiB) / run.idleLobbies),
    },
  };
}

/** One figure's median and range over the repeats of a size. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

/** The figures the summary reports, by name, and how each is read from a run's figures. */
const summarised: readonly (readonly [string, (f: ScaleFigures) => number])[] = [
  ["natsMsgsPerOp", (f) => f.natsMsgsPerOp],
  ["natsBytesPerOp", (f) => f.natsBytesPerOp],
  ["kvWritesPerOp", (f) => f.kvWritesPerOp],
  ["foyerCpuSecondsPer1000Ops", (f) => f.cpuSecondsPer1000Ops.foyer],
  ["natsCpuSecondsPer1000Ops", (f) => f.cpuSecondsPer1000Ops.nats],
  ["idleMsgsPerNodeSecond", (f) => f.idlePerNodeSecond.natsMsgs],
  ["idleKvWritesPerNodeSecond", (f) => f.idlePerNodeSecond.kvWrites],
  ["idleFoyerCpuMsPerNodeSecond", (f) => f.idlePerNodeSecond.foyerCpuMs],
  ["heapKiBPerLobby", (f) => f.memoryKiBPerLobby.heap],
  ["rssKiBPerLobby", (f) => f.memoryKiBPerLobby.rss],
  ["snapshotBusiestOverShare", (f) => f.snapshotSpread.busiestOverShare],
];

/** Each summarised figure's spread over the repeats of one size. */
export function spreadOf(repeats: readonly ScaleFigures[]): Record<string, Spread> {
  return Object.fromEntries(
    summarised.map(([name, read]) => {
      const values = repeats.map(read).sort((a, b) => a - b);
      const mid = Math.floor(values.length / 2);
      const median =
        values.length % 2 === 1 ? (values[mid] ?? 0) : ((values[mid - 1] ?? 0) + (values[mid] ?? 0)) / 2;
      return [name, { median: round3(median), min: values[0] ?? 0, max: values[values.length - 1] ?? 0 }];
    }),
  );
}

export function formatRun(f: ScaleFigures): string {
  const streams = Object.entries(f.kvWritesPerOpByBucket)
    .map(([bucket, writes]) => `${bucket} ${writes}`)
    .join(", ");
  return (
    `${f.nodes} node(s): ${f.ops} ops in ${f.opsSeconds} s — CPU s/1,000 ops foyer ${f.cpuSecondsPer1000Ops.foyer}, ` +
    `nats ${f.cpuSecondsPer1000Ops.nats} (by node ${f.cpuSecondsPer1000OpsByNode.join(" / ")}); NATS msgs/op ${f.natsMsgsPerOp}, bytes/op ${f.natsBytesPerOp}; ` +
    `KV writes/op ${f.kvWritesPerOp} (${streams}); snapshot streams ${f.snapshotSpread.streams}, ` +
    `busiest ${f.snapshotSpread.busiestOverShare}× its share; idle per node·s: ${f.idlePerNodeSecond.natsMsgs} msgs, ` +
    `${f.idlePerNodeSecond.kvWrites} KV writes, ${f.idlePerNodeSecond.foyerCpuMs} ms CPU; ` +
    `after GC per lobby: heap ${f.memoryKiBPerLobby.heap} KiB, RSS ${f.memoryKiBPerLobby.rss} KiB`
  );
}

/** The summary table: one row per size, each figure as `median (min–max)` over the repeats. */
export function formatSummary(spreads: readonly { nodes: number; spread: Record<string, Spread> }[]): string {
  const names = summarised.map(([name]) => name);
  const cell = (s: Spread | undefined): string => (s === undefined ? "" : `${s.median} (${s.min}–${s.max})`);
  const rows = spreads.map(
    ({ nodes, spread }) => `| ${nodes} | ${names.map((n) => cell(spread[n])).join(" | ")} |`,
  );
  return [`| nodes | ${names.join(" | ")} |`, `|${" --- |".repeat(names.length + 1)}`, ...rows].join("\n");
}
