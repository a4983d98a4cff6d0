import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadScenarios } from "../../ops/conformance/scenarios.ts";
import { buildCsharp, urlArgs, type CsharpBuild } from "../support/csharp.ts";
import { useInProcessFleet } from "../support/process-fleet.ts";

/**
 * The C# client against two nodes of one fleet over real nats-servers: its conformance runner plays the
 * scenarios that need a fleet (node 1 is n1, node 2 is n2), and its own tests add the redirect (a join
 * through the node that does not own the lobby, followed to the lobby's node in the same session) and,
 * last, a drain of n1: its lobby's members are told `moved` and follow to n2.
 */
const fleetScenarios = loadScenarios().filter((s) => (s.nodes ?? 1) > 1);
const fleet = useInProcessFleet(["n1", "n2"]);
let build: CsharpBuild;

beforeAll(async () => {
  build = await buildCsharp();
}, 120_000);
afterAll(() => {
  build.remove();
});

describe("the C# client on a fleet", () => {
  it("its conformance runner passes the scenarios that need a fleet", async () => {
    expect(fleetScenarios.map((s) => s.name)).toContain("redirect-resume-elsewhere");
    const urls = fleet.nodes.map((n) => n.url);
    const only = fleetScenarios.flatMap((s) => ["--scenario", s.name]);
    const { code, out } = await build.conformance([...urlArgs(urls), ...only]);
    for (const scenario of fleetScenarios) {
      expect(out).toContain(`ok    ${scenario.name} [json] (${scenario.steps.length} steps)`);
    }
    expect(out).toContain(`${fleetScenarios.length} passed, 0 failed\n`);
    expect(code).toBe(0);
  });

  it("its own tests pass, the redirect and a drain's moved among them (n1 is drained last)", async () => {
    const { code, out } = await build.clientTests(
      fleet.nodes.map((n) => n.url),
      fleet.nodes[0]?.adminUrl,
    );
    expect(out).toContain("ok    follow a redirect: a join through the other node ends on the lobby's node");
    expect(out).toContain("ok    follow a moved: a drain of the lobby's node moves its members");
    expect(out).toMatch(/\n\d+ passed, 0 failed\n/);
    expect(code).toBe(0);
  });
});
