import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadScenarios } from "../../ops/conformance/scenarios.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { buildCsharp, conformanceLobbyTypesFile, urlArgs, type CsharpBuild } from "../support/csharp.ts";
import { startTestNode } from "../support/node.ts";

/**
 * The C# client (clients/csharp), built with Mono here: its conformance runner plays every single-node
 * scenario against an embedded node through the client's own transport (JSON text frames), and its own
 * tests drive the high-level API against the same node. The fleet's part is
 * test/cluster/csharp-client-fleet.test.ts.
 */
let build: CsharpBuild;
let node: RunningNode;

beforeAll(async () => {
  [build, node] = await Promise.all([
    buildCsharp(),
    startTestNode({ lobbyTypesFile: conformanceLobbyTypesFile }),
  ]);
}, 120_000);
afterAll(async () => {
  await node.stop();
  build.remove();
});

describe("the C# client", () => {
  it("its conformance runner passes every single-node scenario and skips the fleet ones, saying why", async () => {
    const { code, out } = await build.conformance(urlArgs([node.url]));
    const all = loadScenarios();
    const single = all.filter((s) => (s.nodes ?? 1) === 1);
    const fleet = all.filter((s) => (s.nodes ?? 1) > 1);
    for (const scenario of single)
      expect(out).toContain(`ok    ${scenario.name} [json] (${scenario.steps.length} steps)`);
    for (const scenario of fleet) {
      expect(out).toContain(
        `skip  ${scenario.name} [json]: needs ${scenario.nodes} nodes of one fleet, given 1 URL`,
      );
    }
    expect(out).toContain(`${single.length} passed, 0 failed, ${fleet.length} skipped`);
    expect(code).toBe(0);
  }, 90_000);

  it("its runner fails a scenario that does not hold (exit 1) and bad usage (exit 2)", async () => {
    const usage = await build.conformance([...urlArgs([node.url]), "--scenario", "no-such-scenario"]);
    expect(usage.out).toContain('--scenario: no scenario "no-such-scenario"');
    expect(usage.code).toBe(2);
    // A node that answers with another key's tokens refused: every hello is UNAUTHORIZED, not a welcome.
    const refused = await build.conformance([
      ...urlArgs([node.url]),
      "--scenario",
      "hello-welcome",
      "--token-key",
      "k1:another-secret-0123456789abcdef",
    ]);
    expect(refused.out).toContain("FAIL  hello-welcome [json] step 3 (alice expect)");
    expect(refused.out).toContain("0 passed, 1 failed");
    expect(refused.code).toBe(1);
  }, 30_000);

  it("its own tests pass against the node (connect, create, join, ready, leave, refusals, resume, epochs)", async () => {
    const { code, out } = await build.clientTests([node.url]);
    expect(out).toContain("ok    resume: after a drop the same session comes back with its lobby");
    expect(out).toContain("ok    the runner fails a wrong expectation");
    expect(out).toContain("skip  fleet tests (redirect): need 2 nodes of one fleet, given 1 URL");
    expect(out).toMatch(/\n\d+ passed, 0 failed, 2 skipped\n/);
    expect(code).toBe(0);
  }, 60_000);
});
