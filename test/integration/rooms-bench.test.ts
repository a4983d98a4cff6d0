import { describe, expect, it } from "vitest";
import { runRoomsBench } from "../../ops/bench/rooms-bench.ts";

/** `foyer bench --scenario rooms`, run briefly: its figures are there and sane. */
describe("rooms bench", () => {
  it("reports turns delivered, lateness, bytes per room and a capacity for a short run", async () => {
    const result = await runRoomsBench({
      maxRooms: 2,
      startRooms: 2,
      seconds: 1,
      turnMs: 50,
      lateLimitMs: 1_000,
      json: true,
    });
    expect(result.steps).toHaveLength(1);
    const step = result.steps[0]!;
    expect(step.rooms).toBe(2);
    // Two rooms of four seats at 20 turns a second each deliver far more than nothing.
    expect(step.turnsPerSecond).toBeGreaterThan(10);
    expect(step.lateness.count).toBeGreaterThan(5);
    expect(step.lateness.p99Ms).toBeGreaterThanOrEqual(step.lateness.p50Ms);
    expect(Number.isFinite(step.lateness.p50Ms)).toBe(true);
    expect(step.stateBytesPerRoom).toBeGreaterThan(500);
    expect(result.capacity).toBe(2);
    expect(result).toMatchObject({ durability: "volatile", store: "memory" });
  }, 30_000);

  it("runs rooms whose every turn is written first (turnDurability persisted)", async () => {
    const result = await runRoomsBench({
      maxRooms: 2,
      startRooms: 2,
      seconds: 1,
      turnMs: 50,
      lateLimitMs: 1_000,
      durability: "persisted",
      json: true,
    });
    expect(result.durability).toBe("persisted");
    expect(result.steps[0]!.turnsPerSecond).toBeGreaterThan(10);
    expect(result.capacity).toBe(2);
  }, 30_000);
});
