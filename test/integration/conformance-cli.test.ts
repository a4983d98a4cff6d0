import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { runSuite, type SuiteOptions } from "../../ops/conformance/run-suite.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { startTestNode, testKey } from "../support/node.ts";

/** `foyer conformance` against a running node: with a signing key, with dev tokens, and its failures. */
let node: RunningNode | undefined;
afterEach(async () => {
  await node?.stop();
  node = undefined;
});

const suite = async (options: Partial<SuiteOptions> & { url: string }) => {
  let out = "";
  const code = await runSuite({ encodings: ["json", "msgpack"], json: false, ...options }, (t) => {
    out += t;
  });
  return { code, out };
};
const origin = (n: RunningNode) => n.url.replace(/\/ws$/, "");

describe("foyer conformance", () => {
  it("signs tokens with --token-key and passes a scenario in both encodings (JSON output)", async () => {
    node = await startTestNode();
    const { code, out } = await suite({
      url: origin(node),
      scenario: "lobby-create-join",
      tokenKey: `${testKey.id}:${testKey.secret}`,
      json: true,
    });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({
      ok: true,
      passed: 2,
      failed: 0,
      results: [
        { scenario: "lobby-create-join", encoding: "json", ok: true },
        { scenario: "lobby-create-join", encoding: "msgpack", ok: true },
      ],
    });
  });

  it("uses a dev-mode node's dev tokens when no key is given", async () => {
    node = await startTestNode({ devTokens: "true" });
    const { code, out } = await suite({ url: origin(node), scenario: "hello-welcome", encodings: ["json"] });
    expect(out).toContain("ok    hello-welcome [json]");
    expect(out).toContain("1 passed, 0 failed");
    expect(code).toBe(0);
  });

  it("skips a scenario that needs a fleet when given one URL, and says so (exit 0)", async () => {
    node = await startTestNode({ devTokens: "true" });
    const { code, out } = await suite({ url: origin(node), scenario: "redirect-resume-elsewhere" });
    expect(out).toContain("skip  redirect-resume-elsewhere [json]: needs 2 nodes of one fleet, given 1 URL");
    expect(out).toContain("0 passed, 0 failed, 2 skipped");
    expect(code).toBe(0);
  });

  it("fails (exit 1) when the node refuses the players, and says why at which step", async () => {
    node = await startTestNode();
    const { code, out } = await suite({
      url: origin(node),
      scenario: "hello-welcome",
      encodings: ["msgpack"],
      tokenKey: "k1:a-key-the-node-does-not-have",
    });
    expect(code).toBe(1);
    expect(out).toContain("FAIL  hello-welcome [msgpack] step 3 (alice expect)");
    expect(out).toContain("UNAUTHORIZED");
    expect(out).toContain("0 passed, 1 failed");
  });

  it("refuses bad usage with exit 2: an unknown scenario, no dev tokens, a bad URL or key", async () => {
    node = await startTestNode();
    const url = origin(node);
    expect(await suite({ url, scenario: "nope", tokenKey: "k1:x" })).toMatchObject({
      code: 2,
      out: expect.stringContaining('no scenario "nope"; there are'),
    });
    expect(await suite({ url, scenario: "hello-welcome" })).toMatchObject({
      code: 2,
      out: expect.stringContaining("--token-key kid:secret"),
    });
    expect(await suite({ url: "http://x", tokenKey: "k1:x" })).toMatchObject({ code: 2 });
    expect(await suite({ url, tokenKey: "nocolon" })).toMatchObject({ code: 2 });
    expect(await suite({ url, tokenKey: "k1:x", timeoutMs: -1 })).toMatchObject({ code: 2 });
  });

  it("runs from the command line", async () => {
    node = await startTestNode();
    const { stdout } = await promisify(execFile)(
      "node_modules/.bin/tsx",
      [
        "ops/cli.ts",
        "conformance",
        "--url",
        origin(node),
        "--scenario",
        "hello-not-first",
        "--token-key",
        `${testKey.id}:${testKey.secret}`,
        "--json",
      ],
      { timeout: 30_000 },
    );
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, passed: 2, failed: 0 });
  });
});
