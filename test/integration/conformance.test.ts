import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runScenario, type Encoding } from "../../ops/conformance/runner.ts";
import { conformanceLobbyTypesFile, loadScenarios } from "../../ops/conformance/scenarios.ts";
import type { Scenario } from "../../ops/conformance/scenario-format.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { startTestNode, tokenFor } from "../support/node.ts";

/**
 * Every scenario in conformance/scenarios/ against an embedded node, in both encodings, with the raw
 * reference runner. Each run has its own player ids, so one node serves them all.
 */
const scenarios = loadScenarios().filter((s) => (s.nodes ?? 1) === 1); // the rest: test/cluster/conformance-fleet.test.ts
let node: RunningNode;

beforeAll(async () => {
  // The lobby types matchmaking-queue-accept needs, as docs/conformance.md tells a node to be started.
  node = await startTestNode({ lobbyTypesFile: conformanceLobbyTypesFile });
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
      }, 60_000); // activity-lobby-events waits out a 10 s countdown
    }
  }
});

describe("the runner fails a scenario that does not hold, naming the step", () => {
  const run = (scenario: Scenario, encoding: Encoding = "json") =>
    runScenario(scenario, { url: node.url, encoding, tokenFor: (p, n) => tokenFor(p, n), timeoutMs: 2_000 });
  const named = (name: string): Scenario => {
    const found = scenarios.find((s) => s.name === name);
    if (!found) throw new Error(`no scenario ${name}`);
    return structuredClone(found);
  };

  it("a wrong expectation fails with the step, the path and both values", async () => {
    const scenario = named("hello-welcome");
    const step = scenario.steps[2];
    if (!step || !("expect" in step)) throw new Error("step 3 of hello-welcome is the welcome");
    step.expect.player = { id: "$alice", name: "Alicia" };
    const result = await run(scenario, "msgpack");
    expect(result).toMatchObject({ ok: false, passed: 2 });
    expect(result.failure).toContain("hello-welcome [msgpack] step 3 (alice expect)");
    expect(result.failure).toContain('at player.name: expected "Alicia", got "Alice"');
  });

  it("a frame where nothing was expected, a wrong close code, an unbound variable: each fails", async () => {
    const quiet: Scenario = {
      name: "quiet",
      description: "a pong is not nothing",
      clients: { alice: { name: "Alice" } },
      steps: [
        { client: "alice", connect: true },
        { client: "alice", send: { type: "hello", protocol: 1, token: "$token" } },
        { client: "alice", expectAll: [{ type: "welcome" }, { type: "noLobby" }] },
        { client: "alice", send: { type: "ping", t: 1 } },
        { client: "alice", expectNothing: 1_000, note: "wrong on purpose" },
      ],
    };
    const quietResult = await run(quiet);
    expect(quietResult.failure).toContain(
      'step 5 (alice expectNothing) "wrong on purpose": expected no frame',
    );
    expect(quietResult.failure).toContain('"type":"pong"');

    const badToken = named("hello-bad-token");
    badToken.steps[badToken.steps.length - 1] = { client: "mallory", expectClose: 4000 };
    expect((await run(badToken)).failure).toContain("expected close 4000, got close 4001");

    const unbound = named("lobby-leave");
    const join = unbound.steps.findIndex((s) => "send" in s && s.send.type === "join");
    unbound.steps.splice(join, 0, { client: "bob", send: { type: "join", id: 9, code: "$nothing" } });
    expect((await run(unbound)).failure).toContain(
      `step ${join + 1} (bob send): variable $nothing is not bound yet`,
    );
  });
});
