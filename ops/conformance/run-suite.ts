import { signPlayerToken } from "../../gateway/auth/player-token.ts";
import { fetchDevToken } from "../../gateway/client/node.ts";
import { runScenario, type Encoding, type ScenarioResult } from "./runner.ts";
import { loadScenarios } from "./scenarios.ts";

/** `foyer conformance`: the suite against any node (docs/conformance.md). */
export interface SuiteOptions {
  /** ws://host:port (the path `/ws` is added when missing) or a full WebSocket URL. */
  readonly url: string;
  /** The other nodes of the same fleet, alike, for the scenarios that need several nodes. */
  readonly moreUrls?: readonly string[];
  /** Each node's admin API URL, in the order of the URLs, for the scenarios that drain a node. */
  readonly adminUrls?: readonly string[];
  /** Only this scenario (its name). */
  readonly scenario?: string;
  readonly encodings: readonly Encoding[];
  /** `kid:secret`, a key the node has: the runner signs its players' tokens. Without it: dev tokens. */
  readonly tokenKey?: string;
  readonly timeoutMs?: number;
  readonly json: boolean;
}

/** Bad usage: printed and exit code 2. */
export class SuiteUsageError extends Error {}

/** The WebSocket URL of a node given as ws://host:port. */
export function wsUrlOf(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SuiteUsageError(`--url: not a URL: ${url}`);
  }
  if (parsed.protocol !== "ws:" && parsed.protocol !== "wss:") {
    throw new SuiteUsageError(`--url: expected ws:// or wss://, got ${parsed.protocol}`);
  }
  if (parsed.pathname === "/" || parsed.pathname === "") parsed.pathname = "/ws";
  return parsed;
}

/** How the runner gets its players' tokens: signed with --token-key, or from the node's GET /dev/token. */
export function tokenSource(
  url: URL,
  tokenKey: string | undefined,
): (player: string, name: string) => Promise<string> {
  if (tokenKey !== undefined) {
    const at = tokenKey.indexOf(":");
    if (at < 1 || at === tokenKey.length - 1) throw new SuiteUsageError("--token-key: expected kid:secret");
    const key = { id: tokenKey.slice(0, at), secret: tokenKey.slice(at + 1) };
    return (player, name) =>
      Promise.resolve(signPlayerToken({ sub: player, name, exp: Math.floor(Date.now() / 1000) + 600 }, key));
  }
  const http = `${url.protocol === "wss:" ? "https:" : "http:"}//${url.host}`;
  return async (player, name) => {
    try {
      return await fetchDevToken(http, name, player);
    } catch (error) {
      throw new SuiteUsageError(
        `no dev token from ${http}/dev/token (${error instanceof Error ? error.message : String(error)}): ` +
          "a node in dev mode serves it; otherwise give --token-key kid:secret with one of the node's --token-keys",
      );
    }
  };
}

/** A scenario's line: ok, FAIL with the step and why, or skip with why. */
function resultLine(result: ScenarioResult): string {
  if (result.ok) return `ok    ${result.scenario} [${result.encoding}] (${result.steps} steps)\n`;
  if (result.skipped !== undefined)
    return `skip  ${result.scenario} [${result.encoding}]: ${result.skipped}\n`;
  return `FAIL  ${result.failure ?? result.scenario}\n`;
}

/** Runs the suite, prints a line per scenario and encoding (or one JSON object) and returns the exit code. */
export async function runSuite(options: SuiteOptions, print: (text: string) => void): Promise<number> {
  let results: ScenarioResult[];
  try {
    const url = wsUrlOf(options.url);
    if (options.timeoutMs !== undefined && !(Number.isInteger(options.timeoutMs) && options.timeoutMs > 0)) {
      throw new SuiteUsageError("--timeout-ms: expected a whole number of milliseconds above 0");
    }
    const moreUrls = (options.moreUrls ?? []).map((u) => wsUrlOf(u).toString());
    const tokenFor = tokenSource(url, options.tokenKey);
    const all = loadScenarios();
    const scenarios = options.scenario === undefined ? all : all.filter((s) => s.name === options.scenario);
    if (scenarios.length === 0) {
      throw new SuiteUsageError(
        `--scenario: no scenario "${options.scenario ?? ""}"; there are ${all.map((s) => s.name).join(", ")}`,
      );
    }
    results = [];
    for (const scenario of scenarios) {
      for (const encoding of options.encodings) {
        const result = await runScenario(scenario, {
          url: url.toString(),
          moreUrls,
          ...(options.adminUrls === undefined ? {} : { adminUrls: options.adminUrls }),
          encoding,
          tokenFor,
          ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        });
        results.push(result);
        if (!options.json) print(resultLine(result));
      }
    }
  } catch (error) {
    if (!(error instanceof SuiteUsageError)) throw error;
    if (options.json) print(`${JSON.stringify({ ok: false, error: error.message })}\n`);
    else print(`foyer conformance: ${error.message}\n`);
    return 2;
  }
  const skipped = results.filter((r) => r.skipped !== undefined).length;
  const failed = results.filter((r) => !r.ok).length - skipped;
  const passed = results.length - failed - skipped;
  if (options.json) {
    print(`${JSON.stringify({ ok: failed === 0, passed, failed, skipped, results })}\n`);
  } else {
    print(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`);
  }
  return failed === 0 ? 0 : 1;
}
