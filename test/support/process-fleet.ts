import { writeFileSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import WebSocket from "ws";
import { FoyerClient, type FoyerClientOptions, type SocketLike } from "../../gateway/client/index.ts";
import { startNats, type NatsLauncher } from "../../ops/nats/index.ts";
import { startNodeProcess, type NodeProcess } from "../../ops/node/node-process.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, startTestNode, testKey, tokenFor } from "./node.ts";

/** A fleet of `foyer node` processes over real nats-servers, for the tests of one file. */
export interface ProcessFleet {
  /** The running nats-servers (throws before beforeAll has run). */
  readonly nats: () => NatsLauncher;
  /** Every node process started, in order (killed ones too). */
  readonly nodes: NodeProcess[];
  /** The public URL of each node started in beforeAll, then of any started later with `start`. */
  readonly urls: string[];
  /** Their admin API URLs, in the same order. */
  readonly admins: string[];
  /** Starts one more node process (or a node again under its old id, as a new incarnation). */
  start(id: string, flags?: Readonly<Record<string, string>>): NodeProcess;
  /**
   * A connected SDK client of `player` that knows every node, `first` first (closed after all). `extra`
   * sets client options (a recording WebSocket, say).
   */
  player(player: string, first: string, extra?: Partial<FoyerClientOptions>): Promise<FoyerClient>;
  /** Closes every client `player` made so far (between two cases of one file). */
  closePlayers(): void;
}

/** How a test file's fleet is made. */
export interface ProcessFleetOptions {
  readonly ids: readonly string[];
  /** nats-servers: 3 makes a JetStream cluster with R3 buckets. */
  readonly natsServers: number;
  /** Their monitoring ports (to ask who leads what). */
  readonly monitoring?: boolean;
  /** Flags of every node (besides the fleet's own: NATS, keys, free ports). */
  readonly flags?: Readonly<Record<string, string>>;
  /** Runs in afterAll before the processes are killed (a browser to close, say). */
  readonly beforeStop?: () => Promise<void>;
}

/**
 * Starts `natsServers` nats-servers and one node process per id (one after another: each opens the
 * buckets the first one made) in beforeAll, and kills them all in afterAll. With
 * `FOYER_TEST_NODE_LOGS=<dir>`, each node logs at info and its log is kept there.
 */
export function useProcessFleet(options: ProcessFleetOptions): ProcessFleet {
  let launcher: NatsLauncher | undefined;
  const nodes: NodeProcess[] = [];
  const urls: string[] = [];
  const admins: string[] = [];
  const clients: FoyerClient[] = [];
  const logDir = process.env.FOYER_TEST_NODE_LOGS;
  const nats = (): NatsLauncher => {
    if (launcher === undefined) throw new Error("the nats-servers are not running");
    return launcher;
  };
  const start = (id: string, flags: Readonly<Record<string, string>> = {}): NodeProcess => {
    const node = startNodeProcess({
      id,
      natsUrls: nats().urls,
      natsReplicas: Math.min(3, options.natsServers),
      tokenKeys: `${testKey.id}:${testKey.secret}`,
      sessionSecret: "process-fleet-session-secret-0123",
      flags: {
        "max-connections-per-ip": "100000",
        ...options.flags,
        ...flags,
        ...(logDir === undefined ? {} : { "log-level": "info" }),
      },
    });
    nodes.push(node);
    return node;
  };

  beforeAll(async () => {
    launcher = await startNats({ servers: options.natsServers, monitoring: options.monitoring ?? false });
    for (const id of options.ids) {
      const node = start(id);
      urls.push(await node.url);
      admins.push(await node.admin);
    }
  }, 120_000);

  afterAll(async () => {
    await options.beforeStop?.();
    for (const client of clients.splice(0)) client.close();
    if (logDir !== undefined) {
      for (const node of nodes) writeFileSync(`${logDir}/${node.id}-${node.child.pid}.log`, node.output());
    }
    for (const node of nodes) node.child.kill("SIGKILL");
    await Promise.all(nodes.map((node) => node.exited));
    await launcher?.stop();
  }, 60_000);

  return {
    nats,
    nodes,
    urls,
    admins,
    start,
    closePlayers() {
      for (const client of clients.splice(0)) client.close();
    },
    async player(player, first, extra = {}) {
      const client = new FoyerClient({
        WebSocket: WebSocket as unknown as new (url: string) => SocketLike,
        urls: [first, ...urls.filter((url) => url !== first)],
        token: tokenFor(player),
        reconnectMinMs: 50,
        reconnectMaxMs: 500,
        callTimeoutMs: 30_000,
        ...extra,
      });
      clients.push(client);
      await client.connect();
      return client;
    },
  };
}

/** Three (or more) nodes of one fleet in this process, over real nats-servers, for one test file. */
export interface InProcessFleet {
  /** The nodes, in the order of their ids (filled by beforeAll). */
  readonly nodes: RunningNode[];
  /** A connected SDK client of `player` on `node` (closed after all). */
  connect(node: RunningNode, player: string): Promise<FoyerClient>;
}

/**
 * Starts 3 nats-servers (R3 buckets) and one in-process node per id with `settings` in beforeAll, and
 * stops them in afterAll: for tests that reach into a node's parts (its system, its sessions).
 */
export function useInProcessFleet(
  ids: readonly string[],
  settings: () => Readonly<Record<string, string>> = () => ({}),
): InProcessFleet {
  let launcher: NatsLauncher | undefined;
  const nodes: RunningNode[] = [];
  const clients: FoyerClient[] = [];
  beforeAll(async () => {
    launcher = await startNats({ servers: 3 });
    const fleet = {
      nats: launcher.urls.join(","),
      natsReplicas: "3",
      maxConnectionsPerIp: "10000",
      sessionSecret: "cluster-session-secret-0123",
      ...settings(),
    };
    for (const nodeId of ids) nodes.push(await startTestNode({ ...fleet, nodeId }));
  }, 120_000);
  afterAll(async () => {
    for (const client of clients.splice(0)) client.close();
    for (const node of nodes.splice(0)) await node.stop();
    await launcher?.stop();
  }, 60_000);
  return {
    nodes,
    async connect(node, player) {
      const client = await clientFor(node, player, { callTimeoutMs: 20_000 });
      clients.push(client);
      return client;
    },
  };
}
