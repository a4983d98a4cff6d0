import { pino } from "pino";
import { createNodeClient, signPlayerToken, type FoyerClient } from "../../gateway/index.ts";
import { loadConfig } from "../config.ts";
import { startNode, type NodeHooks } from "../node/start-node.ts";

/** One embedded node (no NATS, the in-memory store) started for a bench, and its SDK clients. */
export interface EmbeddedBenchNode {
  /** An SDK client of `player` (shown as `name`, else as its id), connected. */
  connect(player: string, name?: string): Promise<FoyerClient>;
  /** Closes every client it connected, then the node. */
  stop(): Promise<void>;
}

const benchKey = { id: "bench", secret: "bench-secret-0123456789abcdef" };

/** Starts an embedded node on a free port with no rate limits and no lobby grace, logging nothing. */
export async function startEmbeddedBenchNode(hooks: NodeHooks = {}): Promise<EmbeddedBenchNode> {
  const config = loadConfig(
    {
      port: "0",
      adminPort: "0",
      tokenKeys: `${benchKey.id}:${benchKey.secret}`,
      ratePerSecond: "1000000",
      rateBurst: "1000000",
      maxConnectionsPerIp: "100000",
      lobbyGraceSeconds: "0",
      logLevel: "silent",
    },
    {},
  );
  const node = await startNode(config, pino({ level: "silent" }), hooks);
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const clients: FoyerClient[] = [];
  return {
    async connect(player, name = player) {
      const token = signPlayerToken({ sub: player, name, exp }, benchKey);
      const client = createNodeClient({ urls: [node.url], token });
      clients.push(client);
      await client.connect();
      return client;
    },
    async stop() {
      for (const client of clients.splice(0)) client.close();
      await node.stop();
    },
  };
}
