import { Command, Option } from "commander";
import { ConfigError, flagOf, loadConfig, settings } from "./config.ts";
import { createLogger } from "./logger.ts";
import { startNode } from "./node/start-node.ts";
import { runClusterBench } from "./bench/cluster-bench.ts";
import { runFailoverBench } from "./bench/failover-bench.ts";
import { runDrainBench } from "./bench/drain-bench.ts";
import { runScaleBench } from "./bench/scale-bench.ts";
import { runLobbyBench } from "./bench/lobby-bench.ts";
import { runRoomsBench } from "./bench/rooms-bench.ts";
import { runMatchmakingBench } from "./bench/matchmaking-bench.ts";
import { runCluster } from "./cluster.ts";
import { runRollingRestart } from "./rolling-restart.ts";
import { NatsAuthError, natsAuthOf } from "./nats/nats-auth.ts";
import { NatsRefusedError, NatsVersionError } from "../fleet/index.ts";
import { httpUrlOf, runDrain, runStatus } from "./admin/index.ts";
import { runChaos } from "./chaos/index.ts";
import { runSuite } from "./conformance/run-suite.ts";
import { fuzzFailed, runFuzz } from "./fuzz/index.ts";

/** `foyer`: run a node, benchmark it. */
/** How long a drained node waits at most for members still connected here to move over to its peers. */
const handOffWaitMs = 10_000;

const program = new Command("foyer").description("Foyer: a lobby cluster for multiplayer games");

const nodeCommand = program
  .command("node")
  .description("run one node (embedded: no NATS needed) and print its URL");
for (const [name, setting] of Object.entries(settings)) {
  const flag = name === "production" ? flagOf(name) : `${flagOf(name)} <value>`;
  nodeCommand.addOption(new Option(flag, `${setting.help} [${setting.env}]`));
}
nodeCommand.action(async (opts: Record<string, string | boolean>) => {
  const flags: Record<string, string> = {};
  for (const [k, v] of Object.entries(opts)) flags[k] = String(v);
  let config;
  try {
    config = loadConfig(flags, process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`foyer: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  let node;
  try {
    node = await startNode(config, logger);
  } catch (error) {
    // NATS refused this node (TLS, credentials, an old server), or a credential file is wrong: say why.
    if (
      error instanceof NatsRefusedError ||
      error instanceof NatsAuthError ||
      error instanceof NatsVersionError
    ) {
      process.stderr.write(`foyer: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  process.stdout.write(`Foyer node ${config.nodeId} listening on ${node.url}\n`);
  process.stdout.write(`Admin API: ${node.adminUrl} (/metrics, /status, /api/v1)\n`);
  if (!config.production) {
    process.stdout.write(`Dev tokens: ${node.httpUrl}/dev/token?name=Alice\n`);
  }
  const shutdown = (signal: string): void => {
    logger.info({ signal }, "shutting down; in embedded mode lobbies end with the process");
    void node.stop().then(() => process.exit(0));
  };
  // A drain (SIGTERM, `foyer drain`, POST /drain) ends with the process: exit 0 once nothing is left
  // here (or at its deadline, when what is left is taken over by the peers as the node leaves).
  void node.drained?.then(async (progress) => {
    logger.info({ progress }, "drained; leaving the fleet");
    // A moment for `foyer drain` to read the final progress from /status, and for the members of the
    // last lobbies moved to move over to their new node (their requests are forwarded until they have).
    const started = Date.now();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const waited = Date.now() - started;
      if (waited >= handOffWaitMs) break;
      if (waited >= 1_000 && node.sessions.handedOffConnected === 0) break;
    }
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
});

program
  .command("cluster")
  .description(
    "run a local fleet: nats-servers and node processes; prints every node's URL, Ctrl-C stops all",
  )
  .option("--nodes <n>", "Foyer node processes", "3")
  .option("--nats <n>", "nats-servers (3 = a JetStream cluster with R3 buckets)", "3")
  .action(async (opts: { nodes: string; nats: string }) => {
    await runCluster({ nodes: Number(opts.nodes), nats: Number(opts.nats) });
  });

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

/** The admin URL of a node started with the default settings on this machine. */
const localAdmin = httpUrlOf(settings.adminHost.def, Number(settings.adminPort.def));

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

program
  .command("bench")
  .description(
    "benchmark an embedded node (lobby, rooms, matchmaking), a local 3-node fleet (cluster, failover, drain) or fleets of 1 to 5 nodes (scale) and print figures",
  )
  .addOption(
    new Option("--scenario <name>", "what to measure")
      .choices(["lobby", "cluster", "rooms", "failover", "drain", "scale", "matchmaking"])
      .default("lobby"),
  )
  .option("--clients <n>", "lobby, cluster: concurrent clients", "32")
  .option("--seconds <s>", "how long to run the load (cluster: each timed phase; rooms: each step)", "10")
  .option("--idle-lobbies <n>", "lobby: lobbies of 8 members for the memory figure", "2000")
  .option("--max-rooms <n>", "rooms: the most rooms of 4 seats to step up to (doubling from 8)", "512")
  .option("--turn-ms <ms>", "rooms: the turn length", "100")
  .addOption(
    new Option(
      "--rooms-store <store>",
      "rooms: where snapshots go — the embedded node's memory, or JetStream through a local nats-server",
    )
      .choices(["memory", "nats"])
      .default("nats"),
  )
  .option(
    "--lobbies <n>",
    "failover: lobbies on the node that is killed (1000); drain: idle lobbies on the drained node (1000); scale: idle lobbies for the memory figure (500)",
  )
  .option(
    "--members <n>",
    "failover: members (SDK clients) per lobby, the host included (1); drain: connected members of each lobby (4)",
  )
  .option("--failure-timeout-ms <ms>", "failover: the nodes' failure timeout", "3000")
  .option("--nodes <n>", "scale: the largest fleet measured (1 to n node processes)", "5")
  .option("--probes <n>", "drain: members that keep toggling ready through the drain", "50")
  .option("--players <n>", "matchmaking: players queued at once", "10000")
  .option("--step-seconds <s>", "matchmaking: the queue's step", "2")
  .option("--spread <n>", "matchmaking: ratings spread evenly over [1000, 1000 + spread)", "2000")
  .option("--json", "print the figures as one JSON object on the last line")
  .action(
    async (opts: {
      scenario: string;
      clients: string;
      seconds: string;
      idleLobbies: string;
      maxRooms: string;
      turnMs: string;
      roomsStore: string;
      lobbies?: string;
      members?: string;
      failureTimeoutMs: string;
      nodes: string;
      probes: string;
      players: string;
      stepSeconds: string;
      spread: string;
      json?: boolean;
    }) => {
      const json = opts.json ?? false;
      switch (opts.scenario) {
        case "matchmaking":
          await runMatchmakingBench({
            players: Number(opts.players),
            stepSeconds: Number(opts.stepSeconds),
            spread: Number(opts.spread),
            maxSeconds: 600,
            seed: 1,
            json,
          });
          return;
        case "drain":
          await runDrainBench({
            lobbies: Number(opts.lobbies ?? 1000),
            members: Number(opts.members ?? 4),
            probes: Number(opts.probes),
            baselineSeconds: Math.min(Number(opts.seconds), 3),
            json,
          });
          return;
        case "cluster":
          await runClusterBench({ clients: Number(opts.clients), seconds: Number(opts.seconds), json });
          return;
        case "failover":
          await runFailoverBench({
            lobbies: Number(opts.lobbies ?? 1000),
            members: Number(opts.members ?? 1),
            failureTimeoutMs: Number(opts.failureTimeoutMs),
            json,
          });
          return;
        case "scale":
          await runScaleBench({
            sizes: Array.from({ length: Number(opts.nodes) }, (_, i) => i + 1),
            pairs: Math.max(1, Math.floor(Number(opts.clients) / 2)),
            rounds: 10,
            idleLobbies: Number(opts.lobbies ?? 500),
            idleSeconds: Math.min(Number(opts.seconds), 5),
            json,
          });
          return;
        case "rooms":
          // Both durability modes, one after the other: the capacity of each.
          for (const durability of ["volatile", "persisted"] as const) {
            await runRoomsBench({
              maxRooms: Number(opts.maxRooms),
              startRooms: Math.min(8, Number(opts.maxRooms)),
              seconds: Number(opts.seconds),
              turnMs: Number(opts.turnMs),
              lateLimitMs: 20,
              durability,
              fleet: opts.roomsStore === "nats",
              json,
            });
          }
          return;
        default:
          await runLobbyBench({
            clients: Number(opts.clients),
            seconds: Number(opts.seconds),
            idleLobbies: Number(opts.idleLobbies),
            json,
          });
      }
    },
  );

program
  .command("chaos")
  .description(
    "start a local fleet, run SDK bots, kill, freeze and drain nodes and kill nats-servers by a seeded " +
      "schedule, then audit that nothing acknowledged was lost (exit 1 when something was)",
  )
  .option("--nodes <n>", "Foyer node processes", "3")
  .option("--nats <n>", "nats-servers (3 = a JetStream cluster with R3 buckets)", "3")
  .option("--seconds <s>", "how long the load and the faults run", "60")
  .option("--kills <n>", "how many faults to apply (node kills, stops, nats-server kills, drains)", "10")
  .option("--seed <n>", "the seed of the fault schedule and the bots (default: random, printed)")
  .option("--bots <n>", "SDK bots (default 8 per node)")
  .option("--json", "end with one JSON object of the figures on the last line")
  .action(
    async (opts: {
      nodes: string;
      nats: string;
      seconds: string;
      kills: string;
      seed?: string;
      bots?: string;
      json?: boolean;
    }) => {
      const seed = opts.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(opts.seed);
      const numbers = { nodes: opts.nodes, nats: opts.nats, seconds: opts.seconds, kills: opts.kills, seed };
      const bad = Object.entries(numbers).find(([, v]) => !Number.isInteger(Number(v)) || Number(v) < 0);
      if (bad) {
        process.stderr.write(`foyer chaos: --${bad[0]} must be a whole number, got ${String(bad[1])}\n`);
        process.exit(2);
      }
      const result = await runChaos({
        nodes: Number(opts.nodes),
        nats: Number(opts.nats),
        seconds: Number(opts.seconds),
        faults: Number(opts.kills),
        seed,
        ...(opts.bots === undefined ? {} : { bots: Number(opts.bots) }),
        progress: process.stderr.isTTY,
        print: (line) => process.stdout.write(`${line}\n`),
      });
      if (opts.json === true) process.stdout.write(`${JSON.stringify(result.summary)}\n`);
      process.exitCode = result.failed ? 1 : 0;
    },
  );

program
  .command("conformance")
  .description(
    "run the protocol conformance scenarios (conformance/scenarios/) against a node over raw WebSockets, " +
      "in JSON and msgpack; exit 1 when one fails (docs/conformance.md)",
  )
  .requiredOption("--url <url>", "the node's WebSocket URL, e.g. ws://127.0.0.1:7350")
  .option("--scenario <name>", "run only this scenario")
  .addOption(
    new Option("--encoding <encoding>", "which encodings to run")
      .choices(["json", "msgpack", "both"])
      .default("both"),
  )
  .option(
    "--token-key <kid:secret>",
    "sign the players' tokens with this key (one of the node's --token-keys); default: the node's dev tokens",
  )
  .option("--timeout-ms <ms>", "how long an expectation waits", "5000")
  .option("--json", "print one JSON object with every result")
  .action(
    async (opts: {
      url: string;
      scenario?: string;
      encoding: string;
      tokenKey?: string;
      timeoutMs: string;
      json?: boolean;
    }) => {
      process.exitCode = await runSuite(
        {
          url: opts.url,
          encodings: opts.encoding === "both" ? ["json", "msgpack"] : [opts.encoding as "json" | "msgpack"],
          timeoutMs: Number(opts.timeoutMs),
          json: opts.json ?? false,
          ...(opts.scenario === undefined ? {} : { scenario: opts.scenario }),
          ...(opts.tokenKey === undefined ? {} : { tokenKey: opts.tokenKey }),
        },
        (text) => process.stdout.write(text),
      );
    },
  );

program
  .command("fuzz")
  .description(
    "start a node (or use --url) and send it seeded random and mutated frames from many sockets beside " +
      "honest SDK bots: wrong types in every field, wrong shapes, truncated, oversized and garbage frames, " +
      "frames out of order, other players' ids and resume tokens, floods. Counts node crashes, honest " +
      "lobbies changed, frames answered by neither a typed error nor a close code, hijacked sessions, INTERNAL " +
      "answers and error lines in the node's log (exit 1 unless all are 0); " +
      "docs/fuzz.md",
  )
  .option("--frames <n>", "how many frames the fuzz sockets send in all", "10000")
  .option("--seed <n>", "the seed of every fuzz socket's choices (default: random, printed)")
  .option(
    "--json",
    "end with one JSON object on the last line: seed, frames, crashes, changedLobbies, unanswered, " +
      "hijacked, categories (frames by kind), fieldsCovered, closes, errorsByCode, rate (frames/s), ...",
  )
  .option("--url <ws>", "fuzz a running dev-mode node at this WebSocket URL instead of starting one")
  .option("--connections <n>", "fuzz sockets open at once", "32")
  .option("--bots <n>", "honest SDK bots, two a lobby", "6")
  .option(
    "--max-frame-bytes <n>",
    "the node's maxFrameBytes (set on the started node; say it with --url)",
    "65536",
  )
  .action(
    async (opts: {
      frames: string;
      seed?: string;
      url?: string;
      connections: string;
      bots: string;
      maxFrameBytes: string;
      json?: boolean;
    }) => {
      const seed = opts.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(opts.seed);
      const numbers = {
        frames: opts.frames,
        seed,
        connections: opts.connections,
        bots: opts.bots,
        "max-frame-bytes": opts.maxFrameBytes,
      };
      const bad = Object.entries(numbers).find(([, v]) => !Number.isInteger(Number(v)) || Number(v) < 0);
      if (bad) {
        process.stderr.write(`foyer fuzz: --${bad[0]} must be a whole number, got ${String(bad[1])}\n`);
        process.exit(2);
      }
      const summary = await runFuzz({
        frames: Number(opts.frames),
        seed,
        ...(opts.url === undefined ? {} : { url: opts.url }),
        connections: Math.max(1, Number(opts.connections)),
        bots: Number(opts.bots),
        maxFrameBytes: Number(opts.maxFrameBytes),
        print: (line) => process.stderr.write(`${line}\n`),
      });
      const s = summary;
      process.stdout.write(
        `fuzz seed ${String(seed)}: ${String(s.frames)} frames on ${String(s.connections)} sockets in ${String(s.seconds)} s ` +
          `(${String(s.rate)}/s): ${String(s.crashes)} crashes, ${String(s.changedLobbies)} lobbies changed, ` +
          `${String(s.unanswered)} unanswered, ${String(s.hijacked)} sessions hijacked, ` +
          `${String(s.errorsByCode.INTERNAL ?? 0)} INTERNAL answers, ${String(s.nodeErrors)} node errors; ` +
          `${String(s.fieldsCovered)}/${String(s.fieldsTotal)} fields given wrong values, ${String(s.honestAckedOps)} honest ops\n`,
      );
      for (const sample of s.samples) process.stdout.write(`  ${sample}\n`);
      if (opts.json === true) {
        // The samples were printed above; the last line is the figures alone.
        process.stdout.write(`${JSON.stringify({ ...s, samples: undefined })}\n`);
      }
      process.exitCode = fuzzFailed(s) ? 1 : 0;
    },
  );

await program.parseAsync(process.argv);
