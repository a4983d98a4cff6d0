import {
  type ScaleFigures,
  perNodeSecondRows,
  perOpRows,
  runScaleSimulation,
  scaleFigures,
} from "../../fleet/sim/index.ts";

/** Options of `foyer bench --scenario sim-scale`. */
export interface SimScaleBenchOptions {
  /** Fleet sizes simulated, e.g. 5, 10, 25, 50, 100. */
  readonly sizes: readonly number[];
  /** Lobbies open at once, each stepped every 200 virtual ms: the same load at every size. */
  readonly lobbies: number;
  /** Virtual seconds of the measured load. */
  readonly seconds: number;
  readonly seed: number;
  readonly json: boolean;
}

/**
 * `foyer bench --scenario sim-scale`: the deterministic simulation's healthy fleet (the real FleetNode
 * of each node over the simulated KV and bus) at each size under one fixed load, counting each KV watch
 * delivery, KV operation and bus message. Counts, not timings: they do not depend on this machine, and
 * one seed gives the same table on every run.
 */
export async function runSimScaleBench(options: SimScaleBenchOptions): Promise<ScaleFigures[]> {
  const figures: ScaleFigures[] = [];
  for (const nodes of options.sizes) {
    const run = await runScaleSimulation({
      nodes,
      lobbies: options.lobbies,
      loadMs: options.seconds * 1000,
      seed: options.seed,
    });
    figures.push(scaleFigures(run));
    if (!options.json)
      console.log(`simulated ${nodes} nodes: ${run.ops} ops in ${options.seconds} virtual s`);
  }
  if (options.json)
    console.log(JSON.stringify({ scenario: "sim-scale", ...options, json: undefined, figures }));
  else console.log(`\n${formatSimScale(figures)}`);
  return figures;
}

/** The figures as two markdown tables, one column per fleet size. */
export function formatSimScale(figures: readonly ScaleFigures[]): string {
  const head = (first: string): string[] => [
    `| ${first} | ${figures.map((f) => `${f.nodes} nodes`).join(" | ")} |`,
    `| --- | ${figures.map(() => "---").join(" | ")} |`,
  ];
  const line = (label: string, values: readonly number[]): string =>
    `| ${label} | ${values.map((v) => v.toLocaleString("en-US", { maximumFractionDigits: 2 })).join(" | ")} |`;
  return [
    ...head("per op (idle taken out)"),
    line(
      "ops per second",
      figures.map((f) => f.opsPerSecond),
    ),
    ...perOpRows.map((row) =>
      line(
        row.label,
        figures.map((f) => f.perOp[row.label] ?? 0),
      ),
    ),
    "",
    ...head("idle, per node and second"),
    ...perNodeSecondRows.map((row) =>
      line(
        row.label,
        figures.map((f) => f.perNodeSecond[row.label] ?? 0),
      ),
    ),
  ].join("\n");
}
