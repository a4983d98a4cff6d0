import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { startNats, type NatsLauncher } from "./nats/index.ts";

/** Options of `foyer cluster`. */
export interface ClusterOptions {
  readonly nodes: number;
  readonly nats: number;
}

/** A node process of a local cluster and the URL it printed. */
interface NodeProcess {
  readonly id: string;
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  /** Its admin API's URL (`foyer status --admin`). */
  readonly admin: Promise<string>;
}

const cli = fileURLToPath(new URL("./bin/foyer.js", import.meta.url));

/**
 * `foyer cluster`: a local fleet on this machine — `nats` nats-servers (a JetStream cluster when more
 * than one) and `nodes` Foyer node processes sharing one token key and session secret — prints every
 * node's URL, and stops them all on Ctrl-C (or SIGTERM).
 */
export async function runCluster(options: ClusterOptions): Promise<void> {
  const nats = await startNats({ servers: options.nats });
  const shared = {
    tokenKeys: `dev:${randomBytes(24).toString("base64url")}`,
    sessionSecret: randomBytes(24).toString("base64url"),
  };
  const nodes = Array.from({ length: options.nodes }, (_, i) =>
    startNodeProcess(`n${i + 1}`, nats, options, shared),
  );
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    process.stdout.write("stopping the cluster\n");
    for (const node of nodes) node.child.kill("SIGTERM");
    await Promise.all(nodes.map((n) => new Promise((resolve) => n.child.once("exit", resolve))));
    await nats.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => {
    void stop();
  });
  process.once("SIGTERM", () => {
    void stop();
  });
  for (const node of nodes) {
    node.child.once("exit", (code) => {
      if (stopping) return;
      process.stderr.write(`node ${node.id} exited (${code ?? "signal"}); stopping the cluster\n`);
      void stop();
    });
  }
  process.stdout.write(`NATS: ${nats.urls.join(", ")}\n`);
  for (const node of nodes) process.stdout.write(`node ${node.id}: ${await node.url}\n`);
  const admins = await Promise.all(nodes.map((n) => n.admin));
  process.stdout.write(`status: npx foyer status --admin ${admins.join(",")}\n`);
  const first = (await nodes[0]?.url)?.replace(/^ws/, "http").replace(/\/ws$/, "") ?? "";
  process.stdout.write(`dev tokens: ${first}/dev/token?name=Alice (any node) — Ctrl-C stops everything\n`);
}

function startNodeProcess(
  id: string,
  nats: NatsLauncher,
  options: ClusterOptions,
  shared: { tokenKeys: string; sessionSecret: string },
): NodeProcess {
  const args = [
    cli,
    "node",
    "--node-id",
    id,
    "--port",
    "0",
    "--admin-port",
    "0",
    "--nats",
    nats.urls.join(","),
    "--nats-replicas",
    String(Math.min(3, options.nats)),
    "--token-keys",
    shared.tokenKeys,
    "--session-secret",
    shared.sessionSecret,
    "--dev-tokens",
    "true",
    "--log-level",
    "warn",
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let seen = "";
  child.stdout.on("data", (chunk: Buffer) => {
    seen += chunk.toString("utf8");
  });
  /** The first match of `pattern` in what the node printed. */
  const printed = (pattern: RegExp): Promise<string> =>
    new Promise<string>((resolve, reject) => {
      const look = (): void => {
        const match = pattern.exec(seen);
        if (match?.[1]) {
          child.stdout.off("data", look);
          resolve(match[1]);
        }
      };
      child.stdout.on("data", look);
      child.once("exit", () => {
        reject(new Error(`node ${id} exited before it listened`));
      });
    });
  return { id, child, url: printed(/listening on (\S+)/), admin: printed(/Admin API: (\S+)/) };
}
