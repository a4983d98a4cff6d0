// Foyer's side of memory.js, measured the same way: an embedded `foyer node` in its own process, filled
// from this process with lobbies of 8 connected SDK clients (one creates, seven join by code) after 50
// warm-up lobbies; the node's heap after a full GC and its RSS, read from its /metrics, before and after.
// Unlike `foyer bench --scenario lobby`'s figure (lobby state only), this counts everything a seated
// player costs the node: its socket, session and player-registry entry, and its share of the lobby.
// From the repository root: npx tsx ops/bench/peers/foyer-memory.ts [--lobbies 2000]
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createNodeClient, signPlayerToken, type FoyerClient } from "../../../gateway/index.ts";
import { flag } from "./latency.js";

const lobbies = Number(flag("lobbies", 2000));
const members = 8;
const key = { id: "bench", secret: "bench-secret-0123456789abcdef" };
const exp = Math.floor(Date.now() / 1000) + 3600;
const cli = fileURLToPath(new URL("../../bin/foyer.js", import.meta.url));
const preload = fileURLToPath(new URL("./gc-on-signal.mjs", import.meta.url));

const child = spawn(
  process.execPath,
  [
    "--expose-gc",
    "--import",
    preload,
    cli,
    "node",
    ...["--port", "0", "--admin-port", "0", "--token-keys", `${key.id}:${key.secret}`],
    ...["--max-connections-per-ip", "100000", "--rate-per-second", "100000", "--rate-burst", "100000"],
    ...["--log-level", "warn"],
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
let printed = "";
const started = new Promise<{ url: string; admin: string }>((resolve, reject) => {
  child.stdout.on("data", (chunk: Buffer) => {
    printed += chunk.toString("utf8");
    const url = /listening on (\S+)/.exec(printed)?.[1];
    const admin = /Admin API: (\S+)/.exec(printed)?.[1];
    if (url && admin) resolve({ url, admin });
  });
  child.once("exit", (code) => reject(new Error(`node exited (${code}): ${printed}`)));
});
const { url, admin } = await started;
// Whatever happens, leave no node process behind.
const stopNode = (error: unknown): void => {
  console.error(error);
  child.kill("SIGKILL");
  process.exit(1);
};
process.on("uncaughtException", stopNode);
process.on("unhandledRejection", stopNode);

async function memory(): Promise<{ heap: number; rss: number }> {
  child.kill("SIGUSR2");
  await new Promise((r) => setTimeout(r, 500));
  const text = await (await fetch(`${admin}/metrics`)).text();
  const read = (name: string): number => Number(new RegExp(`^${name} (\\S+)`, "m").exec(text)?.[1] ?? NaN);
  return { heap: read("nodejs_heap_size_used_bytes"), rss: read("process_resident_memory_bytes") };
}

const clients: FoyerClient[] = [];
let next = 0;
async function player(): Promise<FoyerClient> {
  const id = `p${next++}`;
  const client = createNodeClient({
    urls: [url],
    token: signPlayerToken({ sub: id, name: id, exp }, key),
    connectTimeoutMs: 60_000,
    callTimeoutMs: 60_000,
  });
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
await new Promise((r) => setTimeout(r, 1000));
const before = await memory();
const t0 = performance.now();
await fill(lobbies);
const fillSeconds = (performance.now() - t0) / 1000;
await new Promise((r) => setTimeout(r, 2000));
const after = await memory();
console.log(
  JSON.stringify({
    lobbies,
    members,
    heapBytesPerLobby: Math.round((after.heap - before.heap) / lobbies),
    heapBytesPerClient: Math.round((after.heap - before.heap) / lobbies / members),
    rssBytesPerLobby: Math.round((after.rss - before.rss) / lobbies),
    fillSeconds: Number(fillSeconds.toFixed(1)),
  }),
);
for (const client of clients) client.close();
child.kill("SIGKILL");
process.exit(0);
