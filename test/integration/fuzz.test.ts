import { expect, it } from "vitest";
import { runFuzz } from "../../ops/fuzz/index.ts";

it("a short fuzz of the front door finds no crash, no changed honest lobby and no unanswered frame", async () => {
  const summary = await runFuzz({ frames: 3_000, seed: 6, connections: 10 });
  expect(summary.frames).toBeGreaterThanOrEqual(3_000);
  expect({
    crashes: summary.crashes,
    changed: summary.honestLobbiesChanged,
    unanswered: summary.unanswered,
  }).toEqual({
    crashes: 0,
    changed: 0,
    unanswered: 0,
  });
  expect(summary.honestAckedOps).toBeGreaterThan(0);
}, 60_000);
