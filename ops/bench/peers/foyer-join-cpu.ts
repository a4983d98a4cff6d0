// The node's CPU time for a fixed number of cold joins into ONE lobby: an embedded `foyer node` in its own
// process (foyer-node.ts), a host who stays, and C clients at once (at most 6, so a seat is always free)
// each looping "new SDK client → connect → join(code) → leave → close" until --joins joins were answered.
// Every join is a new session on the same lobby, the case where the lobby's table of answers for retries
// grew with every session (docs/protocol.md, "Exactly once"). Prints the node's user + system CPU seconds
// over the joins (a figure a shared machine disturbs far less than wall time), and the wall time.
// From the repository root: npx tsx ops/bench/peers/foyer-join-cpu.ts [--joins 1000] [--concurrency 6]
import { startFoyerNode } from "./foyer-node.ts";
import { flag } from "./latency.js";

const joins = Number(flag("joins", 1000));
const concurrency = Math.min(6, Number(flag("concurrency", 6)));

const node = await startFoyerNode();
const host = node.client(node.token("host"));
await host.connect();
const { code } = await host.create();
let started = 0;
let answered = 0;
let failed = 0;
const loop = async (w: number): Promise<void> => {
  const token = node.token(`joiner${w}`);
  while (started < joins) {
    started++;
    const client = node.client(token);
    try {
      await client.connect();
      await client.join(code);
      answered++;
      await client.leave();
    } catch {
      failed++;
    } finally {
      client.close();
    }
  }
};
const cpu0 = node.cpuSeconds();
const t0 = performance.now();
await Promise.all(Array.from({ length: concurrency }, (_, w) => loop(w)));
const cpuSeconds = node.cpuSeconds() - cpu0;
const wallSeconds = (performance.now() - t0) / 1000;
console.log(
  JSON.stringify({
    joins: answered,
    failed,
    concurrency,
    nodeCpuSeconds: Number(cpuSeconds.toFixed(2)),
    nodeCpuMsPerJoin: Number(((cpuSeconds * 1000) / Math.max(1, answered)).toFixed(3)),
    wallSeconds: Number(wallSeconds.toFixed(2)),
  }),
);
host.close();
node.stop();
process.exit(0);
