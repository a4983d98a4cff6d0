import { describe, expect, it } from "vitest";
import { runFailoverBench } from "../../ops/bench/failover-bench.ts";

/**
 * The failover bench runs end to end on a small fleet: 50 lobbies of two members on a node killed with
 * SIGKILL. Every lobby and every member must come back, and every figure is a positive number in order
 * (p50 ≤ p99 ≤ max). No wall-clock upper bound: the machine is shared.
 */
describe("foyer bench --scenario failover", () => {
  it("reports every lobby served again and every member resumed, with sane figures", async () => {
    const failureTimeoutMs = 3_000;
    const result = await runFailoverBench({ lobbies: 50, members: 2, failureTimeoutMs, json: false });
    expect(result.lobbies).toBe(50);
    expect(result.clients).toBe(100);
    expect(result.killedNode).toBe("n1");
    expect(result.servedAgain.missing).toBe(0);
    expect(result.memberResumed.missing).toBe(0);
    expect(result.claimedBySurvivor.missing).toBe(0);
    expect(result.servedAgain.count).toBe(50);
    expect(result.memberResumed.count).toBe(100);
    for (const f of [result.servedAgain, result.claimedBySurvivor, result.memberResumed]) {
      expect(f.minMs).toBeGreaterThan(0);
      expect(f.minMs).toBeLessThanOrEqual(f.p50Ms);
      expect(f.p50Ms).toBeLessThanOrEqual(f.p99Ms);
      expect(f.p99Ms).toBeLessThanOrEqual(f.maxMs);
    }
    // A lobby is served again only after a survivor claimed it.
    expect(result.claimedBySurvivor.minMs).toBeLessThanOrEqual(result.servedAgain.minMs);
    // The death is declared (a tombstone over the victim's record) after the kill and before any takeover.
    expect(result.death.declaredMs).toBeGreaterThan(0);
    expect(result.death.declaredMs).toBeLessThanOrEqual(result.claimedBySurvivor.minMs);
    // A member holds the survivor's state only after its lobby was served again.
    expect(result.memberResumed.p50Ms).toBeGreaterThanOrEqual(result.servedAgain.p50Ms);
    expect(result.memberResumed.maxMs).toBeGreaterThanOrEqual(result.servedAgain.maxMs);
    expect(Object.keys(result.servedBy).sort()).not.toContain("n1");
    expect(Object.values(result.servedBy).reduce((a, b) => a + b, 0)).toBe(50);
    expect(result.target.limitMs).toBe(failureTimeoutMs + 1_000);
  }, 180_000);
});
