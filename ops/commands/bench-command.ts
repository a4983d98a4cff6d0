import { Option, type Command } from "commander";
import { runClusterBench } from "../bench/cluster-bench.ts";
import { runDrainBench } from "../bench/drain-bench.ts";
import { runFailoverBench } from "../bench/failover-bench.ts";
import { runLobbyBench } from "../bench/lobby-bench.ts";
import { runMatchmakingBench } from "../bench/matchmaking-bench.ts";
import { runQueryBench } from "../bench/query-bench.ts";
import { runRoomsBench } from "../bench/rooms-bench.ts";
import { runScaleBench } from "../bench/scale-bench.ts";

/** The flags of `foyer bench`, as commander hands them over (strings until a scenario reads them). */
interface BenchFlags {
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
  ops: string;
  repeats: string;
  snapshotShards?: string;
  settleSeconds: string;
  sizes: string;
  seed: string;
  probes: string;
  players: string;
  stepSeconds: string;
  spread: string;
  json?: boolean;
}

type Scenario = (opts: BenchFlags, json: boolean) => Promise<unknown>;

/** The default scenario: an embedded node's lobby loop and its memory per idle lobby. */
const lobbyScenario: Scenario = (opts, json) =>
  runLobbyBench({
    clients: Number(opts.clients),
    seconds: Number(opts.seconds),
    idleLobbies: Number(opts.idleLobbies),
    json,
  });

/** Each other scenario's run from the flags. */
const scenarios: Readonly<Partial<Record<string, Scenario>>> = {
  matchmaking: (opts, json) =>
    runMatchmakingBench({
      players: Number(opts.players),
      stepSeconds: Number(opts.stepSeconds),
      spread: Number(opts.spread),
      maxSeconds: 600,
      seed: 1,
      json,
    }),
  drain: (opts, json) =>
    runDrainBench({
      lobbies: Number(opts.lobbies ?? 1000),
      members: Number(opts.members ?? 4),
      probes: Number(opts.probes),
      baselineSeconds: Math.min(Number(opts.seconds), 3),
      json,
    }),
  cluster: (opts, json) =>
    runClusterBench({ clients: Number(opts.clients), seconds: Number(opts.seconds), json }),
  failover: (opts, json) =>
    runFailoverBench({
      lobbies: Number(opts.lobbies ?? 1000),
      members: Number(opts.members ?? 1),
      failureTimeoutMs: Number(opts.failureTimeoutMs),
      json,
    }),
  scale: (opts, json) =>
    runScaleBench({
      sizes: Array.from({ length: Number(opts.nodes) }, (_, i) => i + 1),
      pairs: Math.max(1, Math.floor(Number(opts.clients) / 2)),
      ops: Number(opts.ops),
      repeats: Number(opts.repeats),
      idleLobbies: Number(opts.lobbies ?? 500),
      idleSeconds: Math.min(Number(opts.seconds), 10),
      ...(opts.snapshotShards === undefined ? {} : { snapshotShards: Number(opts.snapshotShards) }),
      settleSeconds: Number(opts.settleSeconds),
      json,
    }),
  // Loaded when asked for: the simulation stays out of every other command's process (`foyer node`).
  "sim-scale": async (opts, json) =>
    (await import("../bench/sim-scale-bench.ts")).runSimScaleBench({
      sizes: opts.sizes.split(",").map(Number),
      lobbies: Number(opts.lobbies ?? 40),
      seconds: Number(opts.seconds),
      seed: Number(opts.seed),
      json,
    }),
  heartbeats: async (opts, json) =>
    (await import("../bench/heartbeat-watch-bench.ts")).runHeartbeatWatchBench({
      writesPerSecond: 1_000,
      peers: 100,
      watchers: 5,
      seconds: Math.min(Number(opts.seconds), 10),
      json,
    }),
  query: (opts, json) =>
    runQueryBench({
      lobbies: Number(opts.lobbies ?? 100_000),
      inFlight: 200,
      queries: 4_000,
      changes: 200,
      stormPlayers: Number(opts.players === "10000" ? 5_000 : opts.players),
      json,
    }),
  rooms: async (opts, json) => {
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
  },
};

/** `foyer bench --scenario <name>`: one benchmark, its figures printed (and as JSON with `--json`). */
export function addBenchCommand(program: Command): void {
  program
    .command("bench")
    .description(
      "benchmark an embedded node (lobby, rooms, matchmaking), a local 3-node fleet (cluster, failover, drain) or fleets of 1 to 5 nodes (scale), count what simulated fleets of up to 100 nodes deliver (sim-scale), measure a heard heartbeat (heartbeats) and print figures",
    )
    .addOption(
      new Option("--scenario <name>", "what to measure")
        .choices([
          "lobby",
          "cluster",
          "rooms",
          "failover",
          "drain",
          "scale",
          "sim-scale",
          "heartbeats",
          "matchmaking",
          "query",
        ])
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
      "failover: lobbies on the node that is killed (1000); drain: idle lobbies on the drained node (1000); scale: idle lobbies for the memory figure (500); sim-scale: lobbies open at once (40); query: public lobbies queried (100000)",
    )
    .option(
      "--members <n>",
      "failover: members (SDK clients) per lobby, the host included (1); drain: connected members of each lobby (4)",
    )
    .option("--failure-timeout-ms <ms>", "failover: the nodes' failure timeout", "3000")
    .option("--nodes <n>", "scale: the largest fleet measured (1 to n node processes)", "5")
    .option("--ops <n>", "scale: ops per fleet size and run (fewer for a quick look)", "10000")
    .option("--repeats <n>", "scale: runs of each fleet size, each on a fresh NATS cluster", "3")
    .option("--snapshot-shards <n>", "scale: the fleets' snapshot buckets (default: the nodes' default)")
    .option(
      "--settle-seconds <s>",
      "scale: the fleet sits this long idle before each memory reading (95: idle lobbies passivated)",
      "0",
    )
    .option("--sizes <list>", "sim-scale: the simulated fleet sizes, comma-separated", "5,10,25,50,100")
    .option("--seed <n>", "sim-scale: the simulation's seed", "1")
    .option("--probes <n>", "drain: members that keep toggling ready through the drain", "50")
    .option(
      "--players <n>",
      "matchmaking: players queued at once; query: players of the quick-join storm (5000)",
      "10000",
    )
    .option("--step-seconds <s>", "matchmaking: the queue's step", "2")
    .option("--spread <n>", "matchmaking: ratings spread evenly over [1000, 1000 + spread)", "2000")
    .option("--json", "print the figures as one JSON object on the last line")
    .action(async (opts: BenchFlags) => {
      const run = scenarios[opts.scenario] ?? lobbyScenario;
      await run(opts, opts.json ?? false);
    });
}
