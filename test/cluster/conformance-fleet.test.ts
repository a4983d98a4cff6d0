import { describe, expect, it } from "vitest";
import { runScenario, type Encoding } from "../../ops/conformance/runner.ts";
import { loadScenarios } from "../../ops/conformance/scenarios.ts";
import type { Scenario } from "../../ops/conformance/scenario-format.ts";
import { tokenFor } from "../support/node.ts";
import { useInProcessFleet } from "../support/process-fleet.ts";

/**
 * The scenarios that need a fleet (`nodes` > 1) against nodes of one fleet over real nats-servers, in
 * both encodings, with the reference runner: node 1 of a scenario is n1, node 2 is n2. A scenario that
 * drains a node takes it out of the fleet, so those run last, each encoding draining a node of its own
 * (n1, then n2) into the rest.
 */
const scenarios = loadScenarios().filter((s) => (s.nodes ?? 1) > 1);
const drains = (s: Scenario) => s.steps.some((step) => "drain" in step);
const fleet = useInProcessFleet(["n1", "n2", "n3"]);
const encodings: Encoding[] = ["json", "msgpack"];

describe("conformance scenarios on a fleet", () => {
  it("are there: a redirect to another node and a drain's moved are covered", () => {
    expect(scenarios.map((s) => s.name)).toEqual(
      expect.arrayContaining(["redirect-resume-elsewhere", "drain-moved"]),
    );
  });

  for (const scenario of scenarios.filter((s) => !drains(s))) {
    for (const encoding of encodings) {
      it(`${scenario.name} [${encoding}]`, async () => {
        const [first, second] = fleet.nodes.map((n) => n.url);
        const result = await runScenario(scenario, {
          url: first ?? "",
          moreUrls: [second ?? ""],
          encoding,
          tokenFor: (player, name) => tokenFor(player, name),
        });
        expect(result.failure).toBeUndefined();
        expect(result).toMatchObject({ ok: true, passed: scenario.steps.length });
      }, 60_000);
    }
  }

  it("a runner given one URL skips them, and one without a node's admin API a drain, saying why", async () => {
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
    const drain = scenarios.find(drains);
    if (!drain) throw new Error("no scenario drains a node");
    const undrained = await runScenario(drain, {
      url: fleet.nodes[0]?.url ?? "",
      moreUrls: [fleet.nodes[1]?.url ?? ""],
      encoding: "json",
      tokenFor: (player, name) => tokenFor(player, name),
    });
    expect(undrained).toMatchObject({
      ok: false,
      passed: 0,
      skipped: "drains node 1: needs its admin API URL",
    });
  });

  // Last: each run drains its node 1 (n1 for JSON, n2 for msgpack); n3 stays as everyone's peer.
  for (const scenario of scenarios.filter(drains)) {
    encodings.forEach((encoding, i) => {
      it(`${scenario.name} [${encoding}]`, async () => {
        const drained = fleet.nodes[i];
        const peer = fleet.nodes[2];
        if (!drained || !peer) throw new Error("the fleet has three nodes");
        const result = await runScenario(scenario, {
          url: drained.url,
          moreUrls: [peer.url],
          adminUrls: [drained.adminUrl, peer.adminUrl],
          encoding,
          tokenFor: (player, name) => tokenFor(player, name),
        });
        expect(result.failure).toBeUndefined();
        expect(result).toMatchObject({ ok: true, passed: scenario.steps.length });
      }, 60_000);
    });
  }
});
