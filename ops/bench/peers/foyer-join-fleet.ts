// A cold join on a fleet: one nats-server and two `foyer node` processes, n1 and n2. Hosts create their
// lobbies through n1, which owns them. For each concurrency C, two phases on lobbies of their own:
// - through the owner: C clients each loop "new SDK client of n1 → connect → join(code)";
// - redirected: the same through n2, which does not own the lobby: its `redirect` sends the client to n1,
//   which the SDK follows at once (a second socket and a second hello) before the join is answered.
// Each timed until the join is answered, then leave and close (not timed), after --warm-up-seconds of the
// same untimed. Each phase prints the joins a second, p50 / p99, and each process's CPU time per join
// (n1, n2 and the nats-server; a join's leave included), so the redirect's cost is the difference.
// From the repository root (nats-server from `npx tsx ops/nats/install.ts`):
//   npx tsx ops/bench/peers/foyer-join-fleet.ts [--concurrency 1,200] [--seconds 5] [--warm-up-seconds 3]
//     [--through owner,redirected]
// A profile of both nodes: FOYER_BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR" (each node writes its
// own file when stopped; the lower pid is n1), read with profile-breakdown.js over the timed window each
// phase prints (seconds since the nodes were started; a stopped node drains after it).
import type { FoyerClient } from "../../../gateway/index.ts";
import { createNodeClient } from "../../../gateway/index.ts";
import { startNats } from "../../../ops/nats/index.ts";
import { startNodeProcess, type NodeProcess } from "../../../ops/node/node-process.ts";
import { benchNodeFlags, benchToken, benchTokenKeys } from "../bench-key.ts";
import { runColdJoins } from "./cold-join-loop.ts";
import { flag, summarize } from "./latency.js";
import { cpuSeconds } from "./proc.js";

const concurrencies = String(flag("concurrency", "1,200")).split(",").map(Number);
const seconds = Number(flag("seconds", 5));
const warmUpSeconds = Number(flag("warm-up-seconds", 3));
const phases = String(flag("through", "owner,redirected")).split(",") as ("owner" | "redirected")[];
const joinersPerLobby = 6;
const profileFlags = (process.env.FOYER_BENCH_NODE_FLAGS ?? "").split(" ").filter((f) => f !== "");

const nats = await startNats({ servers: 1 });
const nodesStarted = performance.now();
const nodes: NodeProcess[] = [];
const hosts: FoyerClient[] = [];
async function cleanUp(): Promise<void> {
  for (const host of hosts) host.close();
  // SIGTERM lets a profiled node write its profile; otherwise nothing is left to wait for.
  for (const node of nodes) node.child.kill(profileFlags.length > 0 ? "SIGTERM" : "SIGKILL");
  await Promise.all(nodes.map((n) => n.exited));
  await nats.stop();
}
for (const event of ["uncaughtException", "unhandledRejection"]) {
  process.on(event, (error) => {
    console.error(error);
    void cleanUp().finally(() => process.exit(1));
  });
}
for (const id of ["n1", "n2"]) {
  nodes.push(
    startNodeProcess({
      id,
      natsUrls: nats.urls,
      natsReplicas: 1,
      tokenKeys: benchTokenKeys,
      sessionSecret: "bench-session-secret-0123456789",
      flags: { ...benchNodeFlags, "log-level": "warn" },
      nodeArgs: profileFlags,
    }),
  );
}
const [owner, gateway] = await Promise.all(nodes.map((n) => n.url));
const pids = { n1: nodes[0]!.child.pid ?? 0, n2: nodes[1]!.child.pid ?? 0, nats: nats.pid(0) ?? 0 };

function client(url: string, player: string): FoyerClient {
  return createNodeClient({
    urls: [url],
    token: benchToken(player),
    connectTimeoutMs: 60_000,
    callTimeoutMs: 60_000,
  });
}

async function lobbies(count: number): Promise<string[]> {
  const codes: string[] = [];
  while (codes.length < count) {
    const host = client(owner!, `host${hosts.length}`);
    hosts.push(host);
    await host.connect();
    codes.push((await host.create()).code);
  }
  return codes;
}

function cpuOf(): Record<keyof typeof pids, number> {
  return { n1: cpuSeconds(pids.n1), n2: cpuSeconds(pids.n2), nats: cpuSeconds(pids.nats) };
}

async function cold(concurrency: number, through: "owner" | "redirected") {
  const url = through === "owner" ? owner! : gateway!;
  const codes = await lobbies(Math.ceil(concurrency / joinersPerLobby));
  let cpu0 = cpuOf();
  let cpu1 = cpu0;
  const { latencies, errors, started, elapsedS } = await runColdJoins({
    concurrency,
    codeOf: (w) => codes[Math.floor(w / joinersPerLobby)]!,
    clientOf: (w) => client(url, `${through}${concurrency}-${w}`),
    warmUpSeconds,
    seconds,
    onTimedStart: () => (cpu0 = cpuOf()),
    onTimedEnd: () => (cpu1 = cpuOf()),
  });
  const window = [started, started + elapsedS * 1000].map((t) =>
    Number(((t - nodesStarted) / 1000).toFixed(1)),
  );
  const perJoin = (part: keyof typeof pids): number =>
    Number((((cpu1[part] - cpu0[part]) * 1000) / Math.max(1, latencies.length)).toFixed(3));
  return {
    concurrency,
    through,
    joins: latencies.length,
    joinsPerSecond: Math.round(latencies.length / elapsedS),
    join: summarize(latencies),
    cpuMsPerJoin: { n1: perJoin("n1"), n2: perJoin("n2"), nats: perJoin("nats") },
    timedWindowS: window,
    errors,
  };
}

const results = [];
for (const concurrency of concurrencies) {
  for (const through of phases) {
    const result = await cold(concurrency, through);
    results.push(result);
    const cpu = result.cpuMsPerJoin;
    console.error(
      `${String(concurrency).padStart(3)} clients, ${through.padEnd(10)} ${String(result.joinsPerSecond).padStart(5)} joins/s` +
        `  p50 ${result.join.p50Ms} ms  p99 ${result.join.p99Ms} ms  CPU ms/join: n1 ${cpu.n1}  n2 ${cpu.n2}` +
        `  nats ${cpu.nats}  timed ${result.timedWindowS.join("–")} s  errors ${JSON.stringify(result.errors)}`,
    );
  }
}
console.log(JSON.stringify({ seconds, warmUpSeconds, results }));
await cleanUp();
process.exit(0);
