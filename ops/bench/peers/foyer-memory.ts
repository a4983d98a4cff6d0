// Foyer's side of memory.js, measured the same way: an embedded `foyer node` in its own process
// (foyer-node.ts), filled from this process with lobbies of 8 connected SDK clients (one creates, seven
// join by code) after 50 warm-up lobbies; the node's heap after a full GC and its RSS, read from its
// /metrics, before and after; then the node's CPU time over `--idle-seconds` while every client stays
// connected and nothing is asked (its heartbeats and timers are all it does). Unlike
// `foyer bench --scenario lobby`'s figure (lobby state only), this counts everything a seated player costs
// the node: its socket, session and player-registry entry, and its share of the lobby. Beside the heap used
// it prints the heap V8 holds (used or not) and Node's external memory (buffers), per client, so what of
// the RSS is neither can be told.
// `--liveness-ms` sets the SDK clients' livenessMs (default the SDK's, 45,000: a client pings a node silent
// for 10 s less than that, or half of it under 20 s; the node's own WebSocket pings, every 30 s to an idle
// socket, count as hearing it, so with the default idle clients send nothing; 0 turns the SDK's check off).
// `--settle-seconds S` waits S s before each memory reading (instead of 1 s before and 2 s after), so both
// readings are of a node that sat idle: its idle actors passivate after a minute (lobbies whose members are
// all connected, and the players' registry entries; their snapshots stay), and the fill's garbage pages go
// back to the system. 95 is enough for every actor: the sweep runs every 30 s.
// From the repository root:
//   npx tsx ops/bench/peers/foyer-memory.ts [--lobbies 1000] [--idle-seconds 30] [--liveness-ms 6000]
//     [--settle-seconds 95]
import type { FoyerClient } from "../../../gateway/index.ts";
import { startFoyerNode } from "./foyer-node.ts";
import { flag, settleWait } from "./latency.js";
import { idleCpu } from "./proc.js";

const lobbies = Number(flag("lobbies", 1000));
const idleSeconds = Number(flag("idle-seconds", 30));
const members = 8;
const liveness = flag("liveness-ms", undefined);
const livenessMs = liveness === undefined ? undefined : Number(liveness);
const settleSeconds = Number(flag("settle-seconds", 0));

const node = await startFoyerNode();
const clients: FoyerClient[] = [];
let next = 0;
async function player(): Promise<FoyerClient> {
  const client = node.client(node.token(`p${next++}`), livenessMs);
  clients.push(client);
  await client.connect();
  return client;
}
async function fill(count: number): Promise<void> {
  for (let i = 0; i < count; i += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, count - i) }, async () => {
        const host = await player();
        const { code } = await host.create();
        for (let m = 1; m < members; m++) await (await player()).join(code);
      }),
    );
  }
}

await fill(50);
await settleWait(settleSeconds, 1000);
const before = await node.memory();
const t0 = performance.now();
await fill(lobbies);
const fillSeconds = (performance.now() - t0) / 1000;
await settleWait(settleSeconds, 2000);
const after = await node.memory();
const idle = idleSeconds > 0 ? await idleCpu(node.child.pid, idleSeconds) : null;
console.log(
  JSON.stringify({
    lobbies,
    members,
    livenessMs: livenessMs ?? "SDK default",
    settleSeconds,
    heapBytesPerLobby: Math.round((after.heap - before.heap) / lobbies),
    heapBytesPerClient: Math.round((after.heap - before.heap) / lobbies / members),
    heapTotalBytesPerClient: Math.round((after.heapTotal - before.heapTotal) / lobbies / members),
    externalBytesPerClient: Math.round((after.external - before.external) / lobbies / members),
    rssBytesPerLobby: Math.round((after.rss - before.rss) / lobbies),
    rssBytesPer1000Clients: Math.round(((after.rss - before.rss) / lobbies / members) * 1000),
    rssBytes: after.rss,
    fillSeconds: Number(fillSeconds.toFixed(1)),
    idle,
  }),
);
for (const client of clients) client.close();
node.stop();
process.exit(0);
