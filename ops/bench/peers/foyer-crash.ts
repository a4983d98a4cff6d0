// Foyer's side of crash.js: a fleet of 3 nats-servers (R3 buckets) and 3 Foyer node processes; lobbies
// of N members are created through node n1 (so n1 owns them), then n1 gets SIGKILL. For every client:
// the time from the kill to its socket's drop, and to its lobby being served again by a survivor (a lobby
// frame of a newer epoch with every member seated), and the redirects it was sent meanwhile; a lobby not
// served again within 60 s counts as lost.
// Uses only the root's code and dependencies, so it runs from the repository root:
//   npx tsx ops/bench/peers/foyer-crash.ts [--lobbies 100] [--members 8] [--failure-timeout-ms 3000]
import type { FoyerClient } from "../../../gateway/index.ts";
import { connectCountingClient, redirectFigures } from "../failover-redirects.ts";
import { benchToken, benchTokenKeys } from "../bench-key.ts";
import { startNats } from "../../../ops/nats/index.ts";
import { startNodeProcess, type NodeProcess } from "../../../ops/node/node-process.ts";
import { flag, summarize } from "./latency.js";

const lobbies = Number(flag("lobbies", 100));
const members = Number(flag("members", 8));
const failureTimeoutMs = Number(flag("failure-timeout-ms", 3000));

const nats = await startNats({ servers: 3 });
const nodes: NodeProcess[] = [];
const clients: FoyerClient[] = [];
// Whatever happens, leave no nats-server or node process behind.
async function cleanUp(): Promise<void> {
  for (const client of clients) client.close();
  for (const node of nodes) node.child.kill("SIGKILL");
  await Promise.all(nodes.map((n) => n.exited));
  await nats.stop();
}
process.on("uncaughtException", (error) => {
  console.error(error);
  void cleanUp().finally(() => process.exit(1));
});
process.on("unhandledRejection", (error) => {
  console.error(error);
  void cleanUp().finally(() => process.exit(1));
});
const urls: string[] = [];
let killedAt = 0;
for (const id of ["n1", "n2", "n3"]) {
  const node = startNodeProcess({
    id,
    natsUrls: nats.urls,
    natsReplicas: 3,
    tokenKeys: benchTokenKeys,
    sessionSecret: "bench-session-secret-0123456789",
    flags: { "failure-timeout-ms": String(failureTimeoutMs), "max-connections-per-ip": "100000" },
  });
  nodes.push(node);
  urls.push(await node.url);
}

/** `redirect` frames each client received from the kill until it was served again. */
const redirects = new Map<string, number>();
const servedIds = new Set<string>();
function player(id: string): Promise<FoyerClient> {
  redirects.set(id, 0);
  return connectCountingClient(clients, { urls, token: benchToken(id), callTimeoutMs: 60_000 }, () => {
    if (killedAt !== 0 && !servedIds.has(id)) redirects.set(id, (redirects.get(id) ?? 0) + 1);
  });
}

interface Seat {
  readonly id: string;
  readonly client: FoyerClient;
  readonly code: string;
  readonly epoch: number;
}
const seats: Seat[] = [];
for (let start = 0; start < lobbies; start += 10) {
  await Promise.all(
    Array.from({ length: Math.min(10, lobbies - start) }, async (_, j) => {
      const i = start + j;
      const host = await player(`h${i}`);
      const { code } = await host.create();
      const guests = [];
      for (let m = 1; m < members; m++) {
        const guest = await player(`g${i}-${m}`);
        await guest.join(code);
        guests.push(guest);
      }
      const ids = [`h${i}`, ...guests.map((_, m) => `g${i}-${m + 1}`)];
      for (const [n, client] of [host, ...guests].entries()) {
        while ((client.lobby?.members.length ?? 0) < members) await new Promise((r) => setTimeout(r, 10));
        seats.push({ id: ids[n] ?? "", client, code, epoch: client.lobby?.epoch ?? 0 });
      }
    }),
  );
}

const dropMs: number[] = [];
const servedMs: number[] = [];
const served = seats.map(
  (seat) =>
    new Promise<void>((resolve) => {
      seat.client.on("disconnected", () => dropMs.push(performance.now() - killedAt));
      let done = false;
      seat.client.on("lobby", (lobby) => {
        if (done || killedAt === 0) return;
        if (lobby.code === seat.code && lobby.epoch > seat.epoch && lobby.members.length === members) {
          done = true;
          servedIds.add(seat.id);
          servedMs.push(performance.now() - killedAt);
          resolve();
        }
      });
    }),
);
killedAt = performance.now();
nodes[0]?.child.kill("SIGKILL");
await Promise.race([Promise.all(served), new Promise((r) => setTimeout(r, 60_000))]);
const servedAgain = new Set(
  seats
    .filter((s) => s.client.lobby?.epoch !== undefined && s.client.lobby.epoch > s.epoch)
    .map((s) => s.code),
);
// A change after the failover reaches the other members: the lobbies are live, not only readable.
const firstHost = seats[0];
let liveAfter = false;
if (firstHost) {
  await firstHost.client.ready(true);
  liveAfter = true;
}
const drop = summarize(dropMs);
const back = summarize(servedMs);
console.log(
  JSON.stringify({
    lobbies,
    members,
    clients: seats.length,
    failureTimeoutMs,
    clientsDropped: dropMs.length,
    dropAfterKill: { p50Ms: drop.p50Ms, p99Ms: drop.p99Ms },
    clientsServedAgain: servedMs.length,
    servedAgainAfterKill: {
      p50Ms: back.p50Ms,
      p99Ms: back.p99Ms,
      maxMs: Number(Math.max(...servedMs).toFixed(1)),
    },
    redirectsUntilServed: redirectFigures([...redirects.values()]),
    lobbiesLost: lobbies - servedAgain.size,
    readyAfterFailover: liveAfter,
  }),
);
await cleanUp();
process.exit(0);
