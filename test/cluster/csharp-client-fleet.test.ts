import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadScenarios } from "../../ops/conformance/scenarios.ts";
import type { Scenario } from "../../ops/conformance/scenario-format.ts";
import { buildCsharp, urlArgs, type CsharpBuild, type MonoRun } from "../support/csharp.ts";
import { useInProcessFleet } from "../support/process-fleet.ts";

/**
 * The C# client against nodes of one fleet over real nats-servers: its conformance runner plays the
 * scenarios that need a fleet (node 1 is n1 and node 2 n2; a scenario that drains a node drains n3 into
 * the others), and its own tests add the redirect (a join through the node that does not own the lobby,
 * followed to the lobby's node in the same session) and, last, a drain of n1: its lobby's members are
 * told `moved` and follow.
 */
const fleetScenarios = loadScenarios().filter((s) => (s.nodes ?? 1) > 1);
const drains = (s: Scenario) => s.steps.some((step) => "drain" in step);
const fleet = useInProcessFleet(["n1", "n2", "n3"]);
let build: CsharpBuild;

beforeAll(async () => {
  build = await buildCsharp();
}, 120_000);
afterAll(() => {
  build.remove();
});

const expectAllPassed = ({ code, out }: MonoRun, scenarios: readonly Scenario[]) => {
  for (const scenario of scenarios) {
    expect(out).toContain(`ok    ${scenario.name} [json] (${scenario.steps.length} steps)`);
  }
  expect(out).toContain(`${scenarios.length} passed, 0 failed\n`);
  expect(code).toBe(0);
};

describe("the C# client on a fleet", () => {
  it("its conformance runner passes the scenarios that need a fleet, a drain's moved among them", async () => {
    expect(fleetScenarios.map((s) => s.name)).toEqual(
      expect.arrayContaining(["redirect-resume-elsewhere", "drain-moved"]),
    );
    const [n1, n2, n3] = fleet.nodes;
    if (!n1 || !n2 || !n3) throw new Error("the fleet has three nodes");
    const only = (scenarios: readonly Scenario[]) => scenarios.flatMap((s) => ["--scenario", s.name]);
    const moving = fleetScenarios.filter((s) => !drains(s));
    expectAllPassed(await build.conformance([...urlArgs([n1.url, n2.url]), ...only(moving)]), moving);
    const draining = fleetScenarios.filter(drains);
    const admins = ["--admin", n3.adminUrl, "--admin", n2.adminUrl];
    expectAllPassed(
      await build.conformance([...urlArgs([n3.url, n2.url]), ...admins, ...only(draining)]),
      draining,
    );
  });

  it("its own tests pass, the redirect and a drain's moved among them (n1 is drained last)", async () => {
    const [n1, n2] = fleet.nodes;
    const { code, out } = await build.clientTests([n1?.url ?? "", n2?.url ?? ""], n1?.adminUrl);
    expect(out).toContain("ok    follow a redirect: a join through the other node ends on the lobby's node");
    expect(out).toContain("ok    follow a moved: a drain of the lobby's node moves its members");
    expect(out).toMatch(/\n\d+ passed, 0 failed\n/);
    expect(code).toBe(0);
  });
});
