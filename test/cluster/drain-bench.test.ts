import { describe, expect, it } from "vitest";
import { runDrainBench } from "../../ops/bench/drain-bench.ts";

/** The drain bench end to end on a tiny load: sane figures, no wall-clock assertion. */
describe("foyer bench --scenario drain", () => {
  it("drains every lobby and times the probes before and during the drain, and the controls that stay", async () => {
    const result = await runDrainBench({
      lobbies: 12,
      members: 2,
      probes: 4,
      baselineSeconds: 0.5,
      json: false,
    });
    expect(result.errors).toBe(0);
    // 12 lobbies and their 24 members' player records moved.
    expect(result.keysMoved).toBeGreaterThanOrEqual(12);
    expect(result.seconds).toBeGreaterThan(0);
    expect(result.lobbiesPerSecond).toBeGreaterThan(0);
    expect(result.before.count).toBeGreaterThan(0);
    expect(result.during.count).toBeGreaterThan(0);
    expect(result.pause.count).toBeGreaterThan(0);
    expect(result.pause.p99Ms).toBeGreaterThanOrEqual(result.pause.p50Ms);
    // Every probe's client heard its lobby move; a request in that window is part of its whole-drain worst.
    expect(result.probesMoved).toBe(4);
    expect(result.movePause.count).toBeLessThanOrEqual(4);
    if (result.movePause.count > 0) expect(result.movePause.p99Ms).toBeLessThanOrEqual(result.pause.p99Ms);
    // One control probe per probe, each in a lobby of its own that stays on an undrained node.
    expect(result.stayPause.count).toBe(4);
    expect(result.stayPause.p50Ms).toBeGreaterThan(0);
  }, 120_000);
});
