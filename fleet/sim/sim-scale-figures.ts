import type { ScaleSimulationResult } from "./sim-scale.ts";

/** One line of the scale table: a label and the counts (SimCounters names) it adds up. */
export interface ScaleRow {
  readonly label: string;
  readonly counts: readonly string[];
}

/** What each op causes: counted over the load window, the idle fleet's own traffic taken out. */
export const perOpRows: readonly ScaleRow[] = [
  { label: "claims watch deliveries", counts: ["kv.watch.claims"] },
  { label: "claim writes", counts: ["kv.create.claims", "kv.update.claims", "kv.delete.claims"] },
  { label: "claim reads (cache misses)", counts: ["kv.get.claims"] },
  { label: "claim index writes", counts: ["kv.put.claim-owners", "kv.delete.claim-owners"] },
  {
    label: "snapshot writes",
    counts: ["kv.create.lobbies", "kv.update.lobbies", "kv.put.lobbies", "kv.delete.lobbies"],
  },
  { label: "requests to an owner (forwarded asks)", counts: ["bus.request.foyer.node.*.actor"] },
  { label: "tells to an owner", counts: ["bus.publish.foyer.node.*.actor"] },
  { label: "push relay broadcasts (publishes)", counts: ["bus.publish.foyer.push"] },
  { label: "push relay broadcast deliveries", counts: ["bus.delivered.foyer.push"] },
  { label: "push relay sends to one gateway (requests)", counts: ["bus.request.foyer.node.*.push"] },
  { label: "gateways' heard answers to a broadcast", counts: ["bus.delivered.foyer.node.*.heard"] },
];

/** What the idle fleet costs each node each second. */
export const perNodeSecondRows: readonly ScaleRow[] = [
  { label: "heartbeat writes", counts: ["kv.update.nodes", "kv.put.nodes"] },
  { label: "heartbeats heard (nodes watch)", counts: ["kv.watch.nodes"] },
  { label: "heartbeat reads (gets)", counts: ["kv.get.nodes"] },
  { label: "heartbeat listings (keys)", counts: ["kv.keys.nodes"] },
];

/** The figures of one scale run: each row per op (idle taken out) and each idle row per node and second. */
export interface ScaleFigures {
  readonly nodes: number;
  readonly ops: number;
  readonly opsPerSecond: number;
  readonly perOp: Readonly<Record<string, number>>;
  readonly perNodeSecond: Readonly<Record<string, number>>;
  /** Every count of the load window per op, idle taken out, by SimCounters name (for a closer look). */
  readonly allPerOp: Readonly<Record<string, number>>;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

function sum(counts: ReadonlyMap<string, number>, names: readonly string[]): number {
  return names.reduce((total, name) => total + (counts.get(name) ?? 0), 0);
}

/** Turns a run's counts into figures. A run with no acknowledged op has no per-op figures (NaN). */
export function scaleFigures(run: ScaleSimulationResult): ScaleFigures {
  const idleShare = run.loadMs / run.idleMs;
  const opCount = (names: readonly string[]): number =>
    Math.max(0, sum(run.load, names) - sum(run.idle, names) * idleShare);
  const perOp = (names: readonly string[]): number => round3(opCount(names) / run.ops);
  const idlePerNodeSecond = (names: readonly string[]): number =>
    round3(sum(run.idle, names) / run.nodes / (run.idleMs / 1000));
  return {
    nodes: run.nodes,
    ops: run.ops,
    opsPerSecond: round3(run.ops / (run.loadMs / 1000)),
    perOp: Object.fromEntries(perOpRows.map((row) => [row.label, perOp(row.counts)])),
    perNodeSecond: Object.fromEntries(
      perNodeSecondRows.map((row) => [row.label, idlePerNodeSecond(row.counts)]),
    ),
    allPerOp: Object.fromEntries([...run.load.keys()].sort().map((name) => [name, perOp([name])])),
  };
}
