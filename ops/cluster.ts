import { randomBytes } from "node:crypto";
import { startNats, type NatsLauncher } from "./nats/index.ts";
import { startNodeProcess, type NodeProcess } from "./node/node-process.ts";

/** Options of `foyer cluster`. */
export interface ClusterOptions {
  readonly nodes: number;
  readonly nats: number;
  /** The fleet's snapshot buckets (`--snapshot-shards` of every node); the nodes' default when absent. */
  readonly snapshotShards?: number;
}

/** A node stopped on Ctrl-C that has not exited after this long is killed. */
const nodeStopMs = 10_000;

/** One node of the cluster: its id, the ports it keeps across restarts, and the process running now. */
interface ClusterNode {
  readonly id: string;
  process: NodeProcess;
  /** Its game and admin ports once it listened: a restart listens there again, so its URLs stay valid. */
  ports: { readonly port: string; readonly admin: string } | undefined;
  /** False once it crashed (it is not started again). */
  running: boolean;
}

/**
 * `foyer cluster`: a local fleet on this machine — `nats` nats-servers (a JetStream cluster when more
 * than one) and `nodes` Foyer node processes sharing one token key and session secret — prints every
 * node's URL, and stops them all on Ctrl-C (or SIGTERM), whatever has exited meanwhile. A node that
 * exits 0 (it was drained: `foyer drain`, SIGTERM) is started again under its id and ports, so a drain
 * can be watched on it; a node that crashes is reported and left down.
 */
export async function runCluster(options: ClusterOptions): Promise<void> {
  const nats = await startNats({ servers: options.nats });
  const shared = {
    tokenKeys: `dev:${randomBytes(24).toString("base64url")}`,
    sessionSecret: randomBytes(24).toString("base64url"),
  };
  const shards =
    options.snapshotShards === undefined ? {} : { "snapshot-shards": String(options.snapshotShards) };
  const start = (id: string, ports: ClusterNode["ports"]): NodeProcess =>
    startNodeProcess({
      id,
      natsUrls: nats.urls,
      natsReplicas: Math.min(3, options.nats),
      ...shared,
      inheritStderr: true,
      flags: { ...shards, ...(ports === undefined ? {} : { port: ports.port, "admin-port": ports.admin }) },
    });
  const nodes: ClusterNode[] = Array.from({ length: options.nodes }, (_, i) => {
    const id = `n${i + 1}`;
    return { id, process: start(id, undefined), ports: undefined, running: true };
  });
  const stopper = stopOnSignals(nodes, nats);
  const watch: NodeWatch = {
    start,
    stopping: () => stopper.stopping,
    noneRunning: () => nodes.every((n) => !n.running),
    stop: (code) => stopper.stop(code),
  };
  for (const node of nodes) watchNode(node, watch);
  process.stdout.write(`NATS: ${nats.urls.join(", ")}\n`);
  const urls = await Promise.all(nodes.map((n) => listened(n)));
  for (const [i, node] of nodes.entries()) process.stdout.write(`node ${node.id}: ${urls[i]}\n`);
  const admins = await Promise.all(nodes.map((n) => n.process.admin.catch(() => "")));
  process.stdout.write(`status: npx foyer status --admin ${admins.filter((a) => a !== "").join(",")}\n`);
  const first = urls[0]?.replace(/^ws/, "http").replace(/\/ws$/, "") ?? "";
  process.stdout.write(`dev tokens: ${first}/dev/token?name=Alice (any node) — Ctrl-C stops everything\n`);
}

/** The node's URL once it listens (its ports are kept for a restart), or why it did not start. */
async function listened(node: ClusterNode): Promise<string> {
  const current = node.process;
  try {
    const [url, admin] = await Promise.all([current.url, current.admin]);
    node.ports = { port: new URL(url).port, admin: new URL(admin).port };
    return url;
  } catch {
    return "did not start";
  }
}

/** What watching a node needs from the cluster. */
interface NodeWatch {
  start(id: string, ports: ClusterNode["ports"]): NodeProcess;
  stopping(): boolean;
  /** True once every node crashed. */
  noneRunning(): boolean;
  stop(code: number): Promise<void>;
}

/**
 * When the node's process ends outside a stop: a drained node (exit 0 after it listened) is started
 * again on its ports; any other end is reported and the node stays down, so a node that cannot start
 * is not started in a loop. With no node left running the cluster stops.
 */
function watchNode(node: ClusterNode, watch: NodeWatch): void {
  const current = node.process;
  let up = false;
  void current.url.then(() => (up = true)).catch(() => undefined);
  void current.exited.then(async (code) => {
    if (watch.stopping()) return;
    if (code === 0 && up && node.ports !== undefined) {
      process.stdout.write(`node ${node.id} exited 0 (drained): starting it again\n`);
      node.process = watch.start(node.id, node.ports);
      watchNode(node, watch);
      const url = await listened(node);
      if (!watch.stopping()) process.stdout.write(`node ${node.id} is back: ${url}\n`);
      return;
    }
    node.running = false;
    const how = code === null ? `signal ${current.child.signalCode ?? "?"}` : `code ${code}`;
    process.stderr.write(`node ${node.id} exited (${how}); it is not started again\n`);
    if (watch.noneRunning()) {
      process.stderr.write("no node is left running\n");
      await watch.stop(1);
    }
  });
}

/** Stops the cluster on SIGINT or SIGTERM (a second signal kills what is left at once). */
function stopOnSignals(
  nodes: readonly ClusterNode[],
  nats: NatsLauncher,
): { readonly stopping: boolean; stop(code: number): Promise<void> } {
  let stopping = false;
  const stop = async (code: number): Promise<void> => {
    stopping = true;
    process.stdout.write("stopping the cluster\n");
    await Promise.all(nodes.map((n) => stopNode(n.process)));
    await nats.stop();
    process.exit(code);
  };
  const onSignal = (): void => {
    if (!stopping) {
      void stop(0);
      return;
    }
    // Asked again while stopping: kill every node now (the launcher's exit hook kills the nats-servers).
    for (const node of nodes) node.process.child.kill("SIGKILL");
    process.exit(1);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    get stopping() {
      return stopping;
    },
    stop: async (code) => {
      if (!stopping) await stop(code);
    },
  };
}

/**
 * Stops a node without a drain (SIGINT, as Ctrl-C in a terminal does): the whole fleet and its NATS go
 * down, there is no peer to drain into. Killed if it has not exited after `nodeStopMs`. Resolves at once
 * for a node that already exited.
 */
async function stopNode(node: NodeProcess): Promise<void> {
  const { child } = node;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGKILL"), nodeStopMs);
  await node.exited;
  clearTimeout(timer);
}
