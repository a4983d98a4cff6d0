import { expect, it } from "vitest";
import { badFrameCategories, runFuzz } from "../../ops/fuzz/index.ts";

/**
 * CI's short fuzz of the front door (`foyer fuzz` runs long ones; docs/fuzz.md): a node process of its own,
 * honest bot pairs in their lobbies, and a few thousand seeded bad frames of every kind from many sockets.
 */
it("a short fuzz of the front door: no crash, no honest lobby changed, every bad frame answered", async () => {
  const lines: string[] = [];
  const summary = await runFuzz({
    frames: 5_000,
    seed: 6,
    connections: 16,
    bots: 4,
    // A CI machine under load may be slow, but a frame unanswered this long is not slow: it is lost.
    answerTimeoutMs: 20_000,
    print: (line) => lines.push(line),
  });
  const context = JSON.stringify({ ...summary, log: lines.slice(-20) }, null, 1);
  expect(
    {
      crashes: summary.crashes,
      changedLobbies: summary.changedLobbies,
      unanswered: summary.unanswered,
      hijacked: summary.hijacked,
    },
    context,
  ).toEqual({ crashes: 0, changedLobbies: 0, unanswered: 0, hijacked: 0 });
  // The run did what it says: the frames went out, of every kind, into every field, beside honest bots.
  expect(summary.frames, context).toBeGreaterThanOrEqual(5_000);
  for (const category of badFrameCategories) {
    expect(summary.categories[category] ?? 0, `${category} frames sent\n${context}`).toBeGreaterThan(0);
  }
  expect(summary.fieldsCovered, context).toBe(summary.fieldsTotal);
  expect(summary.honestAckedOps, context).toBeGreaterThan(0);
  // The node answered with typed errors and closed sockets with its codes (floods, oversized frames).
  expect(summary.errorsByCode.INVALID ?? 0, context).toBeGreaterThan(0);
  const limited = (summary.errorsByCode.RATE_LIMITED ?? 0) + (summary.closes["4029"] ?? 0);
  expect(limited, `the flood met the rate limiter\n${context}`).toBeGreaterThan(0);
  expect(summary.closes["4009"] ?? 0, context).toBeGreaterThan(0);
  // A bad frame is the client's error: never an INTERNAL answer, never an error in the node's log.
  expect({ internal: summary.errorsByCode.INTERNAL ?? 0, nodeErrors: summary.nodeErrors }, context).toEqual({
    internal: 0,
    nodeErrors: 0,
  });
}, 90_000);
