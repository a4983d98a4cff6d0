import type { Command } from "commander";
import { httpUrlOf, runDrain, runStatus } from "../admin/index.ts";
import { runCluster } from "../cluster.ts";
import { settings } from "../config.ts";
import { natsAuthOf } from "../nats/index.ts";
import { runRollingRestart } from "../rolling-restart.ts";

/** The admin URL of a node started with the default settings on this machine. */
const localAdmin = httpUrlOf(settings.adminHost.def, Number(settings.adminPort.def));

/** `foyer cluster`: a local fleet that runs until Ctrl-C. */
export function addClusterCommand(program: Command): void {
  program
    .command("cluster")
    .description(
      "run a local fleet: nats-servers and node processes; prints every node's URL, Ctrl-C stops all",
    )
    .option("--nodes <n>", "Foyer node processes", "3")
    .option("--nats <n>", "nats-servers (3 = a JetStream cluster with R3 buckets)", "3")
    .option(
      "--snapshot-shards <n>",
      "snapshot buckets of the fleet, one stream each (default: the nodes' default, 4)",
    )
    .action(async (opts: { nodes: string; nats: string; snapshotShards?: string }) => {
      await runCluster({
        nodes: Number(opts.nodes),
        nats: Number(opts.nats),
        ...(opts.snapshotShards === undefined ? {} : { snapshotShards: Number(opts.snapshotShards) }),
      });
    });
}

/** `foyer rolling-restart`: drain and restart each node of a local fleet under load. */
export function addRollingRestartCommand(program: Command): void {
  program
    .command("rolling-restart")
    .description(
      "start a local fleet, put a small SDK load on it, drain and restart each node in turn; report lost lobbies, lost acks and errors (all must be 0)",
    )
    .option("--nodes <n>", "Foyer node processes", "3")
    .option("--nats <n>", "nats-servers (3 = a JetStream cluster with R3 buckets)", "3")
    .option("--lobbies <n>", "lobbies of two members under load", "30")
    .option("--next-protocol", "restart into a build that also speaks the next protocol version (simulated)")
    .option("--json", "print the result as one JSON object")
    .action(
      async (opts: {
        nodes: string;
        nats: string;
        lobbies: string;
        nextProtocol?: boolean;
        json?: boolean;
      }) => {
        const result = await runRollingRestart({
          nodes: Number(opts.nodes),
          nats: Number(opts.nats),
          lobbies: Number(opts.lobbies),
          nextProtocol: opts.nextProtocol ?? false,
          json: opts.json ?? false,
        });
        process.exitCode = result.ok ? 0 : 1;
      },
    );
}

/** `foyer status`: the cluster's nodes from their admin APIs, as a table. */
export function addStatusCommand(program: Command): void {
  program
    .command("status")
    .description("ask each node's admin API for its status and print a table of the cluster")
    .option("--admin <urls>", "admin API URLs, comma separated", localAdmin)
    .option("--admin-token <token>", `bearer token of the admin APIs [${settings.adminToken.env}]`)
    .option("--json", "print one JSON object (every node and the totals)")
    .action(async (opts: { admin: string; adminToken?: string; json?: boolean }) => {
      const urls = opts.admin
        .split(",")
        .map((u) => u.trim())
        .filter((u) => u !== "");
      const token = opts.adminToken ?? process.env[settings.adminToken.env];
      const code = await runStatus(urls, { json: opts.json ?? false, ...(token ? { token } : {}) }, (text) =>
        process.stdout.write(text),
      );
      process.exitCode = code;
    });
}

/** `foyer drain <node>`: move a node's lobbies to its peers and follow the drain. */
export function addDrainCommand(program: Command): void {
  program
    .command("drain <node>")
    .description("move a fleet node's lobbies to its peers (live progress), then the node exits")
    .option("--admin <url>", "the node's admin API (default: the one its heartbeat in NATS names)")
    .option("--nats <urls>", `NATS URLs, to find the node's admin API [${settings.nats.env}]`)
    .option("--admin-token <token>", `bearer token of the admin API [${settings.adminToken.env}]`)
    .option("--json", "print the summary as one JSON object")
    .action(
      async (node: string, opts: { admin?: string; nats?: string; adminToken?: string; json?: boolean }) => {
        const nats = (opts.nats ?? process.env[settings.nats.env] ?? "").split(",").filter((u) => u !== "");
        const token = opts.adminToken ?? process.env[settings.adminToken.env];
        process.exitCode = await runDrain(
          node,
          {
            json: opts.json ?? false,
            nats,
            natsAuth: natsAuthOf({
              natsUser: process.env[settings.natsUser.env],
              natsPass: process.env[settings.natsPass.env],
              natsToken: process.env[settings.natsToken.env],
              natsNkeyFile: process.env[settings.natsNkeyFile.env],
              natsCreds: process.env[settings.natsCreds.env],
              natsTlsCa: process.env[settings.natsTlsCa.env],
              natsTlsCert: process.env[settings.natsTlsCert.env],
              natsTlsKey: process.env[settings.natsTlsKey.env],
            }),
            ...(opts.admin === undefined ? {} : { admin: opts.admin }),
            ...(token === undefined ? {} : { token }),
          },
          (text) => process.stdout.write(text),
        );
      },
    );
}
