import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScenario, type Encoding } from "../../ops/conformance/runner.ts";
import { loadScenarios } from "../../ops/conformance/scenarios.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { startTestNode, tokenFor } from "../support/node.ts";

/**
 * Every scenario in conformance/scenarios/ against an embedded node, in both encodings, with the raw
 * reference runner. Each run has its own player ids, so one node serves them all.
 */
const scenarios = loadScenarios();
let node: RunningNode;

beforeAll(async () => {
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
});

describe("conformance scenarios", () => {
  it("are there: the core of the protocol is covered", () => {
    expect(scenarios.length).toBeGreaterThanOrEqual(10);
  });

  for (const scenario of scenarios) {
    for (const encoding of ["json", "msgpack"] as Encoding[]) {
      it(`${scenario.name} [${encoding}]`, async () => {
        const result = await runScenario(scenario, {
          url: node.url,
          encoding,
          tokenFor: (player, name) => tokenFor(player, name),
        });
        expect(result.failure).toBeUndefined();
        expect(result).toMatchObject({ ok: true, passed: scenario.steps.length });
      });
    }
  }
});
