import { randomBytes } from "node:crypto";
import { signPlayerToken } from "../../gateway/index.ts";
import { startNodeProcess, type NodeProcess } from "../node/node-process.ts";
import type { TokenSource } from "./fuzz-run-state.ts";

/** The node under test: a `foyer node` process of its own, so a crash is its exit, not the fuzzer's. */
export async function startTarget(
  maxFrameBytes: number,
): Promise<{ node: NodeProcess; url: string; token: TokenSource }> {
  const secret = randomBytes(24).toString("base64url");
  const node = startNodeProcess({
    id: "fuzz-node",
    natsUrls: [],
    natsReplicas: 1,
    tokenKeys: `fuzz:${secret}`,
    sessionSecret: randomBytes(24).toString("base64url"),
    flags: {
      "max-frame-bytes": String(maxFrameBytes),
      // High enough that fuzz frames reach validation instead of the limiter; `flood` still meets it.
      "rate-per-second": "2000",
      "rate-burst": "200",
      "max-connections-per-ip": "100000",
      "log-level": "error",
    },
  });
  const url = await node.url;
  const exp = Math.floor(Date.now() / 1000) + 24 * 3600;
  const token: TokenSource = (player) =>
    Promise.resolve(signPlayerToken({ sub: player, name: player.slice(0, 32), exp }, { id: "fuzz", secret }));
  return { node, url, token };
}

/** Error lines the node logged (pino: level 50 error, 60 fatal). */
export function errorLines(output: string): string[] {
  return output.split("\n").filter((line) => /"level":(50|60)\b/.test(line));
}

/** The node's HTTP root for its WebSocket URL. */
export function httpOf(url: string): string {
  const u = new URL(url);
  u.protocol = u.protocol === "wss:" ? "https:" : "http:";
  u.pathname = "/";
  return u.toString();
}

/** Whether the node answers `/healthz` (within 10 s). */
export function healthCheck(url: string): () => Promise<boolean> {
  const healthUrl = new URL("/healthz", httpOf(url)).toString();
  return async () => {
    try {
      const res = await fetch(healthUrl, { signal: AbortSignal.timeout(10_000) });
      return res.ok;
    } catch {
      return false;
    }
  };
}

/** Stops a started node: SIGTERM, then SIGKILL if it is not gone in 10 s. */
export async function stopTarget(node: NodeProcess): Promise<void> {
  node.child.kill("SIGTERM");
  const timer = setTimeout(() => node.child.kill("SIGKILL"), 10_000);
  await node.exited;
  clearTimeout(timer);
}
