import { randomBytes } from "node:crypto";
import { startNats } from "./nats/index.ts";
import { startNodeProcess } from "./node/node-process.ts";

/** Options of `foyer cluster`. */
export interface ClusterOptions {
  readonly nodes: number;
  readonly nats: number;
}

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
    startNodeProcess({
      id: `n${i + 1}`,
      natsUrls: nats.urls,
      natsReplicas: Math.min(3, options.nats),
      ...shared,
      inheritStderr: true,
    }),
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
