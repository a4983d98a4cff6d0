import { Option, type Command } from "commander";
import type { Logger } from "pino";
import { NatsRefusedError, NatsVersionError, SnapshotLayoutError } from "../../fleet/index.ts";
import { ConfigError, flagOf, loadConfig, settings, type NodeConfig } from "../config.ts";
import { createLogger } from "../logger.ts";
import { NatsAuthError } from "../nats/index.ts";
import { startNode, type RunningNode } from "../node/start-node.ts";

/** How long a drained node waits at most for members still connected here to move over to its peers. */
const handOffWaitMs = 10_000;

/** `foyer node`: one node, every setting a flag (or its environment variable). */
export function addNodeCommand(program: Command): void {
  const nodeCommand = program
    .command("node")
    .description("run one node (embedded: no NATS needed) and print its URL");
  for (const [name, setting] of Object.entries(settings)) {
    const flag = name === "production" ? flagOf(name) : `${flagOf(name)} <value>`;
    nodeCommand.addOption(new Option(flag, `${setting.help} [${setting.env}]`));
  }
  nodeCommand.action(async (opts: Record<string, string | boolean>) => {
    const config = configOrExit(opts);
    const logger = createLogger(config.logLevel);
    const node = await startOrExit(config, logger);
    process.stdout.write(`Foyer node ${config.nodeId} listening on ${node.url}\n`);
    process.stdout.write(`Admin API: ${node.adminUrl} (/metrics, /status, /api/v1)\n`);
    if (!config.production) {
      process.stdout.write(`Dev tokens: ${node.httpUrl}/dev/token?name=Alice\n`);
    }
    exitOnSignals(node, logger);
  });
}

/** The node's settings from its flags and environment; a bad one ends the process with code 2. */
function configOrExit(opts: Record<string, string | boolean>): NodeConfig {
  const flags: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts)) flags[k] = String(v);
  try {
    return loadConfig(flags, process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`foyer: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/** Starts the node; when NATS refused it, says why and ends the process with code 2. */
async function startOrExit(config: NodeConfig, logger: Logger): Promise<RunningNode> {
  try {
    return await startNode(config, logger);
  } catch (error) {
    // NATS refused this node (TLS, credentials, an old server), a credential file is wrong, or the node's
    // --snapshot-shards is not its fleet's: say why.
    if (
      error instanceof NatsRefusedError ||
      error instanceof NatsAuthError ||
      error instanceof NatsVersionError ||
      error instanceof SnapshotLayoutError
    ) {
      process.stderr.write(`foyer: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/** SIGINT stops the node; SIGTERM drains it first when it can; a finished drain ends the process. */
function exitOnSignals(node: RunningNode, logger: Logger): void {
  const shutdown = (signal: string): void => {
    logger.info({ signal }, "shutting down; in embedded mode lobbies end with the process");
    void node.stop().then(() => process.exit(0));
  };
  // A drain (SIGTERM, `foyer drain`, POST /drain) ends with the process: exit 0 once nothing is left
  // here (or at its deadline, when what is left is taken over by the peers as the node leaves).
  void node.drained?.then(async (progress) => {
    logger.info({ progress }, "drained; leaving the fleet");
    await waitForHandOff(node);
    await node.stop();
    process.exit(0);
  });
  process.once("SIGINT", () => {
    shutdown("SIGINT");
  });
  process.once("SIGTERM", () => {
    // In a fleet SIGTERM drains first; alone (or embedded) there is nowhere to move lobbies to.
    const drain = node.drain();
    if (drain.accepted) logger.info("SIGTERM: draining before exit");
    else shutdown("SIGTERM");
  });
}

/**
 * A moment for `foyer drain` to read the final progress from /status, and for the members of the last
 * lobbies moved to move over to their new node (their requests are forwarded until they have).
 */
async function waitForHandOff(node: RunningNode): Promise<void> {
  const started = Date.now();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const waited = Date.now() - started;
    if (waited >= handOffWaitMs) break;
    if (waited >= 1_000 && node.sessions.handedOffConnected === 0) break;
  }
}
