import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { drainUntilAccepted } from "../../ops/admin/index.ts";
import type { NodeStatus } from "../../ops/admin/node-status.ts";
import { eventually } from "../support/node.ts";

/**
 * `foyer cluster` as an operator runs it: a child process with one nats-server and two nodes. A drained
 * node comes back under its id and admin URL, and Ctrl-C (SIGINT) afterwards ends the command and every
 * process it started, the restarted node's too.
 */

const cli = fileURLToPath(new URL("../../ops/bin/foyer.js", import.meta.url));
let cluster: ChildProcess | undefined;

afterEach(() => {
  // A failed case leaves nothing behind: the command runs in its own process group with its children.
  if (cluster?.pid !== undefined && cluster.exitCode === null) process.kill(-cluster.pid, "SIGKILL");
  cluster = undefined;
});

/** The nats-servers and node processes among the direct children of `pid`. */
function childrenOf(pid: number): { nats: number[]; nodes: number[] } {
  let listing = "";
  try {
    listing = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(pid)], { encoding: "utf8" });
  } catch {
    // ps exits 1 when there is none
  }
  const found = { nats: [] as number[], nodes: [] as number[] };
  for (const line of listing.split("\n")) {
    const [, child, args] = /^\s*(\d+)\s+(.*)$/.exec(line) ?? [];
    if (child === undefined || args === undefined) continue;
    if (args.includes("nats-server")) found.nats.push(Number(child));
    if (args.includes("foyer.js node ")) found.nodes.push(Number(child));
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("foyer cluster", () => {
  it("restarts a drained node, and SIGINT stops every process it started", async () => {
    const child = spawn(process.execPath, [cli, "cluster", "--nodes", "2", "--nats", "1"], {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    cluster = child;
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const pid = child.pid!;
    const admins = await eventually(() => {
      const line = /status: npx foyer status --admin (\S+)/.exec(output);
      if (line?.[1] === undefined) throw new Error(`no status line yet:\n${output}`);
      return line[1].split(",");
    }, 60_000);
    expect(admins).toHaveLength(2);
    const first = childrenOf(pid);
    expect([first.nats.length, first.nodes.length], output).toEqual([1, 2]);

    const { summary } = await drainUntilAccepted("n1", { admin: admins[0]! });
    expect(summary.state).toBe("done");
    await eventually(() => expect(output).toMatch(/node n1 is back/), 60_000);
    // Back on its admin URL, as a new process of the command.
    await eventually(async () => {
      const status = (await (await fetch(new URL("/status", admins[0]))).json()) as NodeStatus;
      expect([status.nodeId, status.draining]).toEqual(["n1", false]);
    }, 30_000);
    const now = childrenOf(pid);
    expect([now.nats.length, now.nodes.length], output).toEqual([1, 2]);
    const started = new Set([...first.nats, ...first.nodes, ...now.nats, ...now.nodes]);
    expect(started.size, "the restarted node is a new process").toBe(4);

    child.kill("SIGINT");
    const code = await Promise.race([
      exited,
      new Promise<string>((resolve) => setTimeout(() => resolve("still running"), 30_000)),
    ]);
    expect(code, output).toBe(0);
    expect([...started].filter(alive), output).toEqual([]);
  }, 150_000);
});
