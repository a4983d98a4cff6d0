import { describe, expect, it } from "vitest";
import { type SimulationResult, checkInvariants, runSimulation } from "../../fleet/sim/index.ts";

/**
 * The deterministic simulation of the fleet logic (fleet/sim/): the real Membership, KvActorStore and
 * Failover under store faults, elections, partitions, pauses, clock jumps and crashes, checked against
 * FLEET-PROTOCOL's four invariants. A failing seed is replayed alone with FOYER_SIM_SEED=<seed>.
 */

const replaySeed = process.env.FOYER_SIM_SEED;
const seedCount = Number(process.env.FOYER_SIM_SEEDS ?? 3_000);
const firstSeed = Number(process.env.FOYER_SIM_FIRST_SEED ?? 1);

function report(result: SimulationResult): string {
  const lines = result.violations.map((v) => `  [${v.invariant}] ${v.message}`);
  return [
    `seed ${result.seed} broke ${result.violations.length} invariant check(s):`,
    ...lines.slice(0, 10),
    `faults: ${JSON.stringify(result.faults)}`,
    `replay: FOYER_SIM_SEED=${result.seed} npx vitest run test/unit/fleet-sim.test.ts`,
  ].join("\n");
}

describe("fleet simulation", () => {
  it(
    replaySeed === undefined
      ? `keeps every invariant over ${seedCount} seeds`
      : `keeps every invariant for seed ${replaySeed}`,
    async () => {
      const seeds =
        replaySeed === undefined
          ? Array.from({ length: seedCount }, (_, i) => firstSeed + i)
          : [Number(replaySeed)];
      const failed: string[] = [];
      let acks = 0;
      for (const seed of seeds) {
        const result = await runSimulation({ seed });
        acks += result.stats.acks;
        if (result.violations.length > 0) failed.push(report(result));
        if (replaySeed !== undefined) console.log(result.trace.join("\n"));
      }
      expect(failed, failed.slice(0, 3).join("\n\n")).toEqual([]);
      // The worlds did work: a run where nothing was acknowledged would prove nothing.
      expect(acks).toBeGreaterThan(seeds.length * 20);
    },
    600_000,
  );

  it("replays a seed exactly: two runs of one seed give the same trace", async () => {
    for (const seed of [7, 42, 181]) {
      const first = await runSimulation({ seed });
      const second = await runSimulation({ seed });
      expect(second.trace).toEqual(first.trace);
      expect(second.violations).toEqual(first.violations);
      expect(first.trace.length).toBeGreaterThan(100);
    }
    const other = await runSimulation({ seed: 8 });
    expect(other.trace).not.toEqual((await runSimulation({ seed: 7 })).trace);
  });

  it("two overlapping restarts of one node leave one process of it, not two", async () => {
    // The second restart falls while the node is still down from the first: the first restart's process
    // must not keep running beside the second's (it heartbeats, so the second would refuse to join, and
    // the keys it took would be served by a process nobody routes to).
    for (const seed of [1, 2, 3]) {
      const result = await runSimulation({
        seed,
        faults: {
          plan: [
            { kind: "restart", at: 5_000, node: "n1", ms: 1_000 },
            { kind: "restart", at: 5_500, node: "n1", ms: 5_000 },
          ],
        },
      });
      expect(result.trace.filter((line) => line.includes("NodeIdConflictError"))).toEqual([]);
      expect(result.trace.filter((line) => / n1\/\S+ joined$/.test(line))).toHaveLength(3);
      expect(result.violations).toEqual([]);
    }
  });

  it("keeps every invariant for the seeds outside the CI range that once failed", async () => {
    for (const seed of [5364, 6604, 8642, 13828])
      expect((await runSimulation({ seed })).violations, `seed ${seed}`).toEqual([]);
  });

  it("catches a node that acknowledges without checking its lease", async () => {
    const caught: number[] = [];
    for (let seed = 1; seed <= 300 && caught.length === 0; seed++) {
      const result = await runSimulation({
        seed,
        variant: "acks-without-lease",
        faults: { kinds: ["pause"], count: 3 },
      });
      if (result.violations.some((v) => v.invariant === "one-voice")) caught.push(seed);
    }
    expect(caught.length).toBe(1);
  });

  it("the checks flag each invariant on a hand-made record", () => {
    const violations = checkInvariants({
      acks: [
        { at: 1, key: "k", op: "a", epoch: 2, node: "n1" },
        { at: 2, key: "k", op: "b", epoch: 1, node: "n2" },
        { at: 3, key: "k", op: "c", epoch: 2, node: "n1" },
      ],
      writes: [
        { at: 1, key: "k", epoch: 2, revision: 5 },
        { at: 2, key: "k", epoch: 1, revision: 6 },
      ],
      created: ["k", "gone"],
      final: [
        { key: "k", ops: ["b", "a", "a"], unserved: "the actor is not live there" },
        { key: "gone", ops: null, unserved: null },
      ],
    });
    expect(new Set(violations.map((v) => v.invariant))).toEqual(
      new Set(["one-voice", "nothing-acked-lost", "no-key-lost", "applied-once"]),
    );
  });
});
