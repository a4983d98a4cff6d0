import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { createNodeClient, type FoyerClient } from "../../gateway/index.ts";
import { benchToken, benchTokenKeys, unlimitedClients } from "./bench-key.ts";
import { loadConfig } from "../config.ts";
import { startNats, type NatsLauncher } from "../nats/index.ts";
import { startNode, type RunningNode } from "../node/start-node.ts";
import { KvWriteLog } from "./kv-write-log.ts";

/** A local fleet for the cluster bench: nats-servers, Foyer nodes in this process, and their KV writes. */
export interface BenchFleet {
  readonly nats: NatsLauncher;
  readonly nodes: readonly RunningNode[];
  /** Every KV write any node made, with its timing. */
  readonly writes: KvWriteLog;
  /** An SDK client of `player` connected to node `node` (index into `nodes`). */
  connect(node: number, player: string): Promise<FoyerClient>;
  stop(): Promise<void>;
}

/**
 * Starts `servers` nats-servers (a JetStream cluster, R3 buckets, monitoring on for the meta leader) and
 * `nodes` fleet nodes in this process — in-process so the bench can wrap each node's KV store in a
 * counting decorator; they share one token key and session secret, as a fleet must for redirects.
 */
export async function startBenchFleet(servers: number, nodes: number): Promise<BenchFleet> {
  const nats = await startNats({ servers, monitoring: true });
  const writes = new KvWriteLog();
  const sessionSecret = randomBytes(24).toString("base64url");
  const running: RunningNode[] = [];
  const clients: FoyerClient[] = [];
  try {
    for (let i = 0; i < nodes; i++) {
      const config = loadConfig(
        {
          nodeId: `n${i + 1}`,
          port: "0",
          adminPort: "0",
          nats: nats.urls.join(","),
          natsReplicas: String(Math.min(3, servers)),
          tokenKeys: benchTokenKeys,
          sessionSecret,
          ...unlimitedClients,
          lobbyGraceSeconds: "0",
          logLevel: "silent",
        },
        {},
      );
      running.push(await startNode(config, pino({ level: "silent" }), { kvView: (kv) => writes.wrap(kv) }));
    }
  } catch (error) {
    for (const node of running) await node.stop();
    await nats.stop();
    throw error;
  }
  return {
    nats,
    nodes: running,
    writes,
    async connect(node, player) {
      const url = running[node]?.url;
      if (url === undefined) throw new RangeError(`no node ${node}`);
      const client = createNodeClient({ urls: [url], token: benchToken(player), callTimeoutMs: 20_000 });
      clients.push(client);
      await client.connect();
      return client;
    },
    async stop() {
      for (const client of clients.splice(0)) client.close();
      for (const node of running) await node.stop();
      await nats.stop();
    },
  };
}
