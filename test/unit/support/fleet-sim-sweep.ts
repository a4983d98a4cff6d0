import { expect } from "vitest";
import { type SimulationOptions, type SimulationResult, runSimulation } from "../../../fleet/sim/index.ts";

/**
 * The CI sweep of the fleet simulation, split over two test files so the two halves run on two workers.
 * Worlds are shrunk for it (10 s of faults, 10 s to settle); FOYER_SIM_SEEDS and FOYER_SIM_FIRST_SEED
 * choose the seeds (default 1–5,000: a seed runs a real lobby beside the counters, so fewer seeds keep CI's CPU), FOYER_SIM_SEED replays one seed alone, with its trace.
 */
export const ciWorld = { faultMs: 10_000, settleMs: 10_000 } satisfies Partial<SimulationOptions>;

export const replaySeed = process.env.FOYER_SIM_SEED;
const seedCount = Number(process.env.FOYER_SIM_SEEDS ?? 5_000);
const firstSeed = Number(process.env.FOYER_SIM_FIRST_SEED ?? 1);

/** The seeds of half `half` (0 or 1) of the sweep. */
export function sweepSeeds(half: 0 | 1): number[] {
  if (replaySeed !== undefined) return half === 0 ? [Number(replaySeed)] : [];
  const firstHalf = Math.ceil(seedCount / 2);
  const from = half === 0 ? firstSeed : firstSeed + firstHalf;
  const count = half === 0 ? firstHalf : seedCount - firstHalf;
  return Array.from({ length: count }, (_, i) => from + i);
}

export function report(result: SimulationResult): string {
  const lines = result.violations.map((v) => `  [${v.invariant}] ${v.message}`);
  return [
    `seed ${result.seed} broke ${result.violations.length} invariant check(s):`,
    ...lines.slice(0, 10),
    `faults: ${JSON.stringify(result.faults)}`,
    `replay: FOYER_SIM_SEED=${result.seed} npx vitest run test/unit/fleet-sim.test.ts`,
  ].join("\n");
}

/** Runs `seeds` in CI worlds; fails with the first three reports (each with its replay command). */
export async function sweep(seeds: readonly number[]): Promise<void> {
  const failed: string[] = [];
  let acks = 0;
  let moves = 0;
  let adopted = 0;
  let partySteps = 0;
  for (const seed of seeds) {
    const result = await runSimulation({ seed, ...ciWorld });
    acks += result.stats.acks;
    moves += result.stats.moves;
    adopted += result.stats.adopted;
    partySteps += result.stats.partySteps;
    if (result.violations.length > 0) failed.push(report(result));
    if (replaySeed !== undefined) console.log(result.trace.join("\n"));
  }
  expect(failed, failed.slice(0, 3).join("\n\n")).toEqual([]);
  // The worlds did work: runs where nothing was acknowledged, moved or migrated would prove nothing.
  expect(acks).toBeGreaterThan(seeds.length * 20);
  // The real lobby's script ran in most worlds, not only its create.
  expect(partySteps).toBeGreaterThan(seeds.length * 3);
  if (seeds.length >= 100) {
    expect(moves).toBeGreaterThan(seeds.length / 2);
    expect(adopted).toBeGreaterThan(seeds.length / 20);
  }
}
