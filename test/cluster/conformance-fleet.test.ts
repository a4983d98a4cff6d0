import { describe, expect, it } from "vitest";
import { runScenario, type Encoding } from "../../ops/conformance/runner.ts";
import { loadScenarios } from "../../ops/conformance/scenarios.ts";
import { tokenFor } from "../support/node.ts";
import { useInProcessFleet } from "../support/process-fleet.ts";

/**
 * The scenarios that need a fleet (`nodes` > 1) against nodes of one fleet over real nats-servers, in
 * both encodings, with the reference runner: node 1 of a scenario is n1, node 2 is n2.
 */
const scenarios = loadScenarios().filter((s) => (s.nodes ?? 1) > 1);
const fleet = useInProcessFleet(["n1", "n2"]);

describe("conformance scenarios on a fleet", () => {
  it("are there: a redirect to another node is covered", () => {
    expect(scenarios.map((s) => s.name)).toContain("redirect-resume-elsewhere");
  });

  for (const scenario of scenarios) {
    for (const encoding of ["json", "msgpack"] as Encoding[]) {
      it(`${scenario.name} [${encoding}]`, async () => {
        const [first, ...more] = fleet.nodes.map((n) => n.url);
        const result = await runScenario(scenario, {
          url: first ?? "",
          moreUrls: more,
          encoding,
          tokenFor: (player, name) => tokenFor(player, name),
        });
        expect(result.failure).toBeUndefined();
        expect(result).toMatchObject({ ok: true, passed: scenario.steps.length });
      }, 60_000);
    }
  }

  it("a runner given one URL skips them, saying why", async () => {
    const [scenario] = scenarios;
    if (!scenario) throw new Error("no fleet scenario");
    const result = await runScenario(scenario, {
      url: fleet.nodes[0]?.url ?? "",
      encoding: "json",
      tokenFor: (player, name) => tokenFor(player, name),
    });
    expect(result).toMatchObject({
      ok: false,
      passed: 0,
      skipped: "needs 2 nodes of one fleet, given 1 URL",
    });
  });
});
