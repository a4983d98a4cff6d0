import { describe, expect, it } from "vitest";
import { runMatchmakingBench } from "../../ops/bench/matchmaking-bench.ts";

/** `foyer bench --scenario matchmaking`, run small: its figures are there and sane. */
describe("matchmaking bench", () => {
  it("queues every player, matches pairs, and reports matches a second and the wait to matchFound", async () => {
    const result = await runMatchmakingBench({
      players: 200,
      stepSeconds: 0.2,
      spread: 400,
      maxSeconds: 60,
      seed: 1,
      json: true,
    });
    expect(result).toMatchObject({
      scenario: "matchmaking",
      mode: "in-process",
      players: 200,
      stepSeconds: 0.2,
    });
    // Two hundred ratings over 400 points, windows widening to ±160: all but a stray player or two pair up.
    expect(result.matches * 2 + result.unmatched).toBe(200);
    expect(result.matches).toBeGreaterThanOrEqual(95);
    expect(result.enqueueToMatch.count).toBe(result.matches * 2);
    expect(result.enqueueToMatch.p99Ms).toBeGreaterThanOrEqual(result.enqueueToMatch.p50Ms);
    // Nobody is matched before the first step.
    expect(result.enqueueToMatch.p50Ms).toBeGreaterThan(0);
    expect(result.matchesPerSecond).toBeGreaterThan(0);
    expect(result.matchingSteps).toBeGreaterThanOrEqual(1);
  }, 90_000);
});
