// Foyer's side of cold-join.js, and its warm ops: an embedded `foyer node` in its own process
// (foyer-node.ts) with lobbies whose hosts stay seated. For each concurrency C:
// - cold: C clients at once each loop "new SDK client → connect (WebSocket + welcome) → join(code)",
//   timed until the join is answered, then leave and close (not timed) and again;
// - warm: C clients, each connected once, loop join(code) → leave on their open socket; every join and
//   every leave is one op.
// At most 6 joiners a lobby, as cold-join.js; each phase on lobbies of its own. Untimed rounds for
// --warm-up-seconds first (at least one per client), as cold-join.js. Tokens are signed before the clock
// starts (a studio's backend signs them, not the node).
// From the repository root: npx tsx ops/bench/peers/foyer-join.ts [--concurrency 1,200] [--seconds 5]
//   [--warm-up-seconds 0] [--no-warm]
// A profile of the node alone: FOYER_BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR" (foyer-node.ts).
import type { FoyerClient } from "../../../gateway/index.ts";
import { startFoyerNode } from "./foyer-node.ts";
import { runColdJoins } from "./cold-join-loop.ts";
import { flag, summarize } from "./latency.js";

const concurrencies = String(flag("concurrency", "1,200")).split(",").map(Number);
const seconds = Number(flag("seconds", 5));
const warmUpSeconds = Number(flag("warm-up-seconds", 0));
const joinersPerLobby = 6;
// --no-warm: the cold phase only (for a profile of the node under cold joins alone).
const noWarm = Boolean(flag("no-warm", false));

const node = await startFoyerNode();
const hosts: { client: FoyerClient; code: string }[] = [];
// Fresh lobbies for each phase: a lobby keeps the answers of the last 256 sessions it answered (retried
// requests are answered from them) and writes them with each change, so a lobby the cold phase churned
// through writes larger snapshots; the warm phase should not pay for that.
async function lobbies(count: number): Promise<string[]> {
  const codes: string[] = [];
  while (codes.length < count) {
    const client = node.client(node.token(`host${hosts.length}`));
    await client.connect();
    const { code } = await client.create();
    hosts.push({ client, code });
    codes.push(code);
  }
  return codes;
}
function note(errors: Record<string, number>, error: unknown): void {
  const key = String((error as Error)?.message ?? error).slice(0, 80);
  errors[key] = (errors[key] ?? 0) + 1;
}

async function cold(concurrency: number) {
  const codes = await lobbies(Math.ceil(concurrency / joinersPerLobby));
  const tokens = Array.from({ length: concurrency }, (_, w) => node.token(`cold${concurrency}-${w}`));
  let cpu0 = 0;
  let system0 = 0;
  const { latencies, errors, elapsedS } = await runColdJoins({
    concurrency,
    codeOf: (w) => codes[Math.floor(w / joinersPerLobby)]!,
    clientOf: (w) => node.client(tokens[w]!),
    warmUpSeconds,
    seconds,
    onTimedStart: () => {
      cpu0 = node.cpuSeconds();
      system0 = node.systemCpuSeconds();
    },
  });
  return {
    concurrency,
    joins: latencies.length,
    joinsPerSecond: Math.round(latencies.length / elapsedS),
    join: summarize(latencies),
    // The node's CPU time per timed join (its leave and close included): steadier than wall time.
    serverCpuMsPerJoin: Number(
      (((node.cpuSeconds() - cpu0) * 1000) / Math.max(1, latencies.length)).toFixed(3),
    ),
    // Its part in the kernel (every system call: the socket writes, reads, accepts and closes together).
    serverSystemCpuMsPerJoin: Number(
      (((node.systemCpuSeconds() - system0) * 1000) / Math.max(1, latencies.length)).toFixed(3),
    ),
    errors,
  };
}

async function warm(concurrency: number) {
  const codes = await lobbies(Math.ceil(concurrency / joinersPerLobby));
  const clients = await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      const client = node.client(node.token(`warm${concurrency}-${w}`));
      await client.connect();
      return client;
    }),
  );
  const all: number[] = [];
  const joins: number[] = [];
  const errors: Record<string, number> = {};
  const loop = async (w: number, deadline: number, timed: boolean): Promise<void> => {
    const code = codes[Math.floor(w / joinersPerLobby)]!;
    const client = clients[w]!;
    do {
      try {
        let t0 = performance.now();
        await client.join(code);
        let ms = performance.now() - t0;
        if (timed) (all.push(ms), joins.push(ms));
        t0 = performance.now();
        await client.leave();
        ms = performance.now() - t0;
        if (timed) all.push(ms);
      } catch (error) {
        note(errors, error);
      }
    } while (performance.now() < deadline);
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => loop(w, 0, false)));
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(Array.from({ length: concurrency }, (_, w) => loop(w, deadline, true)));
  const elapsedS = (performance.now() - started) / 1000;
  for (const client of clients) client.close();
  return {
    concurrency,
    ops: all.length,
    opsPerSecond: Math.round(all.length / elapsedS),
    op: summarize(all),
    join: summarize(joins),
    errors,
  };
}

const coldResults = [];
const warmResults = [];
for (const concurrency of concurrencies) {
  coldResults.push(await cold(concurrency));
  if (!noWarm) warmResults.push(await warm(concurrency));
}
console.log(JSON.stringify({ seconds, cold: coldResults, warm: warmResults }));
for (const { client } of hosts) client.close();
node.stop();
process.exit(0);
