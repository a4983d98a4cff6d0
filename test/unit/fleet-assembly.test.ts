import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, vi } from "vitest";
import { runSimulation } from "../../fleet/sim/index.ts";

// `foyer node` and the simulation build their fleet nodes with one function, fleetNodeFrom: the
// simulation's seeds check the wiring that runs, and the two cannot drift apart.

const built = vi.hoisted(() => ({ nodes: [] as string[] }));

vi.mock("../../fleet/fleet-node-from.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../fleet/fleet-node-from.ts")>();
  return {
    ...actual,
    fleetNodeFrom: (...args: Parameters<typeof actual.fleetNodeFrom>) => {
      built.nodes.push(args[1].nodeId);
      return actual.fleetNodeFrom(...args);
    },
  };
});

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const sourceDirs = ["actors", "fleet", "gateway", "ops", "sdk"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith(".ts") ? [relative(root, path)] : [];
  });
}

const sources = sourceDirs
  .filter((dir) => statSync(join(root, dir), { throwIfNoEntry: false })?.isDirectory() === true)
  .flatMap((dir) => sourceFiles(join(root, dir)))
  .map((file) => ({ file, text: readFileSync(join(root, file), "utf8") }));

describe("one assembly of a fleet node", () => {
  it("the simulation builds every process it starts with fleetNodeFrom", async () => {
    built.nodes.length = 0;
    const result = await runSimulation({
      seed: 1,
      faults: { plan: [{ kind: "restart", at: 5_000, node: "n2", ms: 1_000 }] },
    });
    // Four nodes, and n2 once more after its restart.
    expect([...built.nodes].sort()).toEqual(["n1", "n2", "n2", "n3", "n4"]);
    expect(result.trace.filter((line) => / n2\/\S+ joined$/.test(line))).toHaveLength(2);
    expect(result.violations).toEqual([]);
  });

  it("nothing else in the source builds a FleetNode: foyer node and the simulation both call fleetNodeFrom", () => {
    const builders = sources
      .filter(({ text }) => /new FleetNode\(|FleetNode\.start\(/.test(text))
      .map(({ file }) => file);
    // fleet-node.ts's own static start, and fleetNodeFrom.
    expect(builders.sort()).toEqual(["fleet/fleet-node-from.ts", "fleet/fleet-node.ts"]);
    const callers = sources.filter(({ text }) => text.includes("fleetNodeFrom(")).map(({ file }) => file);
    expect(callers).toContain("ops/node/fleet-runtime.ts");
    expect(callers).toContain("fleet/sim/sim-process.ts");
  });

  it("the simulation depends on the fleet, never the reverse", () => {
    // A bench may run the simulation, as the tests do (`foyer bench --scenario sim-scale`); nothing else
    // imports it, and the bench command loads that scenario only when it is asked for.
    const intoSim = sources
      .filter(({ file }) => !file.startsWith("fleet/sim/") && file !== "ops/bench/sim-scale-bench.ts")
      .filter(({ text }) => /from "[^"]*\/sim\/[^"]*"/.test(text))
      .map(({ file }) => file);
    expect(intoSim).toEqual([]);
    const simProcess = sources.find(({ file }) => file === "fleet/sim/sim-process.ts")?.text ?? "";
    expect(simProcess).toContain('from "../fleet-node-from.ts"');
  });

  it("a node whose runtime is not handed its lease (FleetNode's wiring cut) is caught by the seeds", async () => {
    const caught: number[] = [];
    for (let seed = 1; seed <= 100 && caught.length === 0; seed++) {
      const result = await runSimulation({
        seed,
        variant: "runtime-ignores-lease",
        faults: { kinds: ["pause"], count: 3 },
      });
      if (result.violations.some((v) => v.invariant === "one-voice")) caught.push(seed);
    }
    expect(caught).toHaveLength(1);
  }, 120_000);
});
