import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

/**
 * Debian's `prometheus` package installs it at /usr/bin/promtool; `.ci/run` installs the package when it
 * is missing. PROMTOOL_BIN may name another binary.
 */
export const promtoolPath = process.env.PROMTOOL_BIN ?? "/usr/bin/promtool";

/** Whether promtool is installed. */
export const promtoolInstalled = existsSync(promtoolPath);

/**
 * Whether the promtool tests should skip: only outside CI. In CI (`CI=true`) a missing promtool must fail
 * them (each call to `promtool` then throws), so a broken install never passes as "skipped".
 */
export const skipPromtool = !promtoolInstalled && process.env.CI !== "true";

if (skipPromtool) {
  console.warn(`promtool tests skipped: ${promtoolPath} is missing (apt-get install -y prometheus)`);
}

/** What a promtool run printed, and its exit code. */
export interface PromtoolResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `promtool args…` with `stdin` on its standard input; throws when promtool is not installed. */
export async function promtool(args: readonly string[], stdin = ""): Promise<PromtoolResult> {
  if (!promtoolInstalled) {
    throw new Error(
      `${promtoolPath} is missing: install Debian's prometheus package (apt-get install -y prometheus); .ci/run installs it when it can`,
    );
  }
  const child = spawn(promtoolPath, args, { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin.end(stdin);
  const code = await new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (exitCode) => {
      resolve(exitCode ?? -1);
    });
  });
  return { code, stdout, stderr };
}
