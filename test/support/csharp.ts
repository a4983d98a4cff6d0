import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { conformanceLobbyTypesFile, scenariosDir } from "../../ops/conformance/scenarios.ts";
import { testKey } from "./node.ts";

/** The C# client (clients/csharp), built with Mono's mcs and run with mono, for the tests that drive it. */
const csharpDir = fileURLToPath(new URL("../../clients/csharp/", import.meta.url));
const newtonsoft = process.env.NEWTONSOFT_JSON_DLL ?? "/usr/lib/cli/Newtonsoft.Json-5.0/Newtonsoft.Json.dll";
export const csharpTokenKey = `${testKey.id}:${testKey.secret}`;
export { conformanceLobbyTypesFile };

/** `--url` once per node, for the conformance runner and the client's tests. */
export function urlArgs(urls: readonly string[]): string[] {
  return urls.flatMap((url) => ["--url", url]);
}

export interface MonoRun {
  readonly code: number;
  readonly out: string;
}

function run(command: string, args: readonly string[], timeoutMs: number): Promise<MonoRun> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

/** A built C# client: its folder of assemblies, and how to run its two programs. */
export interface CsharpBuild {
  readonly dir: string;
  conformance(args: readonly string[]): Promise<MonoRun>;
  /** The client's tests against these nodes; with `admin` (node 1's admin API), the drain test too. */
  clientTests(urls: readonly string[], admin?: string): Promise<MonoRun>;
  remove(): void;
}

/**
 * Builds the C# client with clients/csharp/build.sh into a fresh temporary folder. Fails (never skips)
 * when Mono or Newtonsoft.Json is missing: .ci/run installs mono-devel and libnewtonsoft-json-cil-dev.
 */
export async function buildCsharp(): Promise<CsharpBuild> {
  const mcs = await run("mcs", ["--version"], 10_000);
  const mono = await run("mono", ["--version"], 10_000);
  if (mcs.code !== 0 || mono.code !== 0 || !existsSync(newtonsoft)) {
    throw new Error(
      "the C# client needs Mono (mcs, mono) and Newtonsoft.Json at " +
        `${newtonsoft}: apt-get install mono-devel libnewtonsoft-json-cil-dev (mcs: ${mcs.code === 0 ? "found" : "missing"}, ` +
        `mono: ${mono.code === 0 ? "found" : "missing"})`,
    );
  }
  const dir = mkdtempSync(join(tmpdir(), "foyer-csharp-"));
  const built = await run("bash", [join(csharpDir, "build.sh"), dir], 120_000);
  if (built.code !== 0) throw new Error(`clients/csharp/build.sh failed (${built.code}):\n${built.out}`);
  return {
    dir,
    conformance: (args) =>
      run(
        "mono",
        [
          join(dir, "foyer-conformance.exe"),
          "--token-key",
          csharpTokenKey,
          "--scenarios",
          scenariosDir,
          ...args,
        ],
        120_000,
      ),
    clientTests: (urls, admin) =>
      run(
        "mono",
        [
          join(dir, "foyer-client-tests.exe"),
          ...urlArgs(urls),
          ...(admin === undefined ? [] : ["--admin", admin]),
          "--token-key",
          csharpTokenKey,
          "--scenarios",
          scenariosDir,
        ],
        120_000,
      ),
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
