import { describe, expect, it } from "vitest";
import { runClusterBench, designWrites } from "../../ops/bench/cluster-bench.ts";

/**
 * The cluster bench runs end to end on a tiny budget: every figure it reports is a positive number (but
 * the own-work differences, which are only finite), and the writes it counts for each op are the ones the
 * design says. No wall-clock assertions.
 */

/** Every number in `value`, with its path, so a zero anywhere names itself. */
function numbersOf(value: unknown, path = "result"): [string, number][] {
  if (typeof value === "number") return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => numbersOf(v, `${path}[${i}]`));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => numbersOf(v, `${path}.${k}`));
  }
  return [];
}

describe("foyer bench --scenario cluster", () => {
  it("reports positive figures for every op, floor and the watch recovery", async () => {
    const result = await runClusterBench({ clients: 2, seconds: 0.3, json: false });
    const numbers = numbersOf(result);
    expect(numbers.length).toBeGreaterThan(50);
    for (const [path, n] of numbers) {
      // Differences of medians from different phases: finite, of any sign on a 0.3 s run.
      if (path.includes(".ownWorkMs.")) expect(Number.isFinite(n), `${path} = ${n}`).toBe(true);
      else expect(Number.isFinite(n) && n > 0, `${path} = ${n}`).toBe(true);
    }
    expect(result.watchRecovery.killedServer).toMatch(/^n[1-3]$/);
    for (const [kind, writes] of Object.entries(designWrites)) {
      const op = result.opsByKind[kind as keyof typeof designWrites];
      expect(op.counted.inSequence, kind).toBe(writes);
      expect(op.counted.awaitedWrites, kind).toHaveLength(op.counted.awaited);
    }
  }, 120_000);
});
