import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { match, substitute } from "../../ops/conformance/match.ts";
import { scenarioJsonSchema } from "../../ops/conformance/scenario-format.ts";
import { loadScenarios, parseScenario } from "../../ops/conformance/scenarios.ts";

const vars = new Map<string, unknown>([
  ["alice", "p-alice"],
  ["code", "ABC123"],
]);

describe("conformance matching rules", () => {
  it("an object pattern is a subset; arrays match in order and length", () => {
    expect(
      match(
        { type: "lobby", members: [{ player: "$alice" }] },
        {
          type: "lobby",
          seq: 4,
          members: [{ player: "p-alice", ready: true }],
        },
        vars,
      ).ok,
    ).toBe(true);
    const short = match({ members: [{}, {}] }, { members: [{}] }, vars);
    expect(short).toMatchObject({
      ok: false,
      path: "members",
      reason: expect.stringContaining("2 elements"),
    });
    const wrong = match({ members: [{ player: "$alice" }] }, { members: [{ player: "p-bob" }] }, vars);
    expect(wrong).toMatchObject({ ok: false, path: "members[0].player" });
  });

  it("placeholders check kinds; $absent requires a missing field", () => {
    const pattern = { s: "$string", n: "$number", i: "$integer", b: "$boolean", a: "$any", gone: "$absent" };
    expect(match(pattern, { s: "x", n: 1.5, i: 3, b: false, a: null }, vars).ok).toBe(true);
    expect(match(pattern, { s: "x", n: 1.5, i: 3.5, b: false, a: null }, vars)).toMatchObject({ path: "i" });
    expect(match(pattern, { s: "x", n: 1, i: 3, b: false, a: 0, gone: 1 }, vars)).toMatchObject({
      path: "gone",
    });
    expect(match({ a: "$any" }, {}, vars)).toMatchObject({ ok: false, path: "a" });
  });

  it("an unbound variable binds to the value; a bound one must equal it; $$ escapes", () => {
    const first = match({ value: { code: "$room" } }, { value: { code: "R1" } }, vars);
    expect(first.ok && [...first.bound]).toEqual([["room", "R1"]]);
    expect(match({ code: "$code" }, { code: "OTHER" }, vars)).toMatchObject({
      ok: false,
      reason: 'expected $code = "ABC123", got "OTHER"',
    });
    expect(match({ t: "$$code" }, { t: "$code" }, vars).ok).toBe(true);
    const twice = match([{ a: "$x" }, { a: "$x" }], [{ a: 1 }, { a: 2 }], vars);
    expect(twice).toMatchObject({ ok: false, path: "[1].a" });
  });

  it("substitution fills variables into frames to send and refuses unbound ones", () => {
    expect(substitute({ type: "join", id: 1, code: "$code", t: "$$x" }, vars)).toEqual({
      type: "join",
      id: 1,
      code: "ABC123",
      t: "$x",
    });
    expect(() => substitute({ code: "$nope" }, vars)).toThrow("variable $nope is not bound yet");
    expect(() => substitute({ code: "$any" }, vars)).toThrow("placeholder");
  });
});

describe("conformance scenario files", () => {
  it("every scenario parses, and conformance/scenario.schema.json is current (npm run docs)", () => {
    expect(loadScenarios().length).toBeGreaterThanOrEqual(10);
    const file = JSON.parse(
      readFileSync(new URL("../../conformance/scenario.schema.json", import.meta.url), "utf8"),
    ) as unknown;
    expect(file).toEqual(scenarioJsonSchema());
  });

  it("docs/conformance.md lists every scenario, and only those", () => {
    const doc = readFileSync(new URL("../../docs/conformance.md", import.meta.url), "utf8");
    const table = doc.slice(doc.indexOf("## The scenarios"), doc.indexOf("## Writing a runner"));
    const listed = [...table.matchAll(/^\| `([a-z0-9-]+)` +\|/gm)].map((m) => m[1]);
    expect(listed.sort()).toEqual(
      loadScenarios()
        .map((s) => s.name)
        .sort(),
    );
  });

  it("a bad scenario is refused with its file and step", () => {
    const base = { name: "x", description: "d", clients: { alice: { name: "A" } } };
    expect(() =>
      parseScenario(JSON.stringify({ ...base, steps: [{ client: "bob", connect: true }] }), "x.json"),
    ).toThrow('step 1 names the client "bob"');
    expect(() =>
      parseScenario(JSON.stringify({ ...base, steps: [{ client: "alice", teleport: 1 }] }), "x.json"),
    ).toThrow("x.json: steps.0");
    expect(() =>
      parseScenario(JSON.stringify({ ...base, steps: [{ client: "alice", close: true }] }), "y.json"),
    ).toThrow('its name is "x"');
  });
});
