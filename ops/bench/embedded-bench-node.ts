import { pino } from "pino";
import { createNodeClient, type FoyerClient } from "../../gateway/index.ts";
import { loadConfig } from "../config.ts";
import { startNode, type NodeHooks } from "../node/start-node.ts";
import { benchToken, benchTokenKeys, unlimitedClients } from "./bench-key.ts";

/** One embedded node (no NATS, the in-memory store) started for a bench, and its SDK clients. */
export interface EmbeddedBenchNode {
  /** An SDK client of `player` (shown as `name`, else as its id), connected. */
  connect(player: string, name?: string): Promise<FoyerClient>;
  /** Closes every client it connected, then the node. */
  stop(): Promise<void>;
}

/** Starts an embedded node on a free port with no rate limits and no lobby grace, logging nothing. */
export async function startEmbeddedBenchNode(hooks: NodeHooks = {}): Promise<EmbeddedBenchNode> {
  const config = loadConfig(
    {
      port: "0",
      adminPort: "0",
      tokenKeys: benchTokenKeys,
      ...unlimitedClients,
      lobbyGraceSeconds: "0",
      logLevel: "silent",
    },
    {},
  );
  const node = await startNode(config, pino({ level: "silent" }), hooks);
  const clients: FoyerClient[] = [];
  return {
    async connect(player, name = player) {
      const client = createNodeClient({ urls: [node.url], token: benchToken(player, name) });
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
