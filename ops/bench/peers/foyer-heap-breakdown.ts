// What a seated client holds on an embedded Foyer node beyond a bare `ws` socket, by part: the node
// (foyer-node.ts) and the `ws` floor (ws-floor.js) each take a heap snapshot after warm-up and another
// after `--lobbies` lobbies of 8 connected SDK clients (or as many bare sockets) were added; heap-diff.js
// counts what each allocated in between and still holds, by owner and by constructor, per client.
// From the repository root:
//   npx tsx ops/bench/peers/foyer-heap-breakdown.ts [--lobbies 250] [--top 30] [--json] [--keep]
import { fork } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import type { FoyerClient } from "../../../gateway/index.ts";
import { diff } from "./heap-diff.js";
import { flag } from "./latency.js";

const lobbies = Number(flag("lobbies", 250));
const top = Number(flag("top", 30));
const members = 8;
const clientsAdded = lobbies * members;
const preload = fileURLToPath(new URL("./heap-snapshot-on-signal.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "foyer-heap-"));

/** Asks the process for its next snapshot and waits until it is written. */
export async function snapshot(pid: number, into: string, n: number): Promise<string> {
  process.kill(pid, "SIGUSR2");
  while (!existsSync(join(into, `${pid}-${n}.done`))) await new Promise((r) => setTimeout(r, 200));
  return join(into, `${pid}-${n}.heapsnapshot`);
}

async function foyerSide(): Promise<{ before: string; after: string }> {
  const into = mkdtempSync(join(dir, "foyer-"));
  process.env.HEAP_SNAPSHOT_DIR = into;
  // Read when foyer-node.ts loads: set first, then load it.
  process.env.FOYER_BENCH_NODE_FLAGS = `--import ${preload}`;
  const { startFoyerNode } = await import("./foyer-node.ts");
  const node = await startFoyerNode();
  const clients: FoyerClient[] = [];
  let next = 0;
  const player = async (): Promise<FoyerClient> => {
    const client = node.client(node.token(`p${next++}`));
    clients.push(client);
    await client.connect();
    return client;
  };
  const fill = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i += 16)
      await Promise.all(
        Array.from({ length: Math.min(16, count - i) }, async () => {
          const host = await player();
          const { code } = await host.create();
          for (let m = 1; m < members; m++) await (await player()).join(code);
        }),
      );
  };
  await fill(50);
  await new Promise((r) => setTimeout(r, 1000));
  const pid = node.child.pid ?? 0;
  const before = await snapshot(pid, into, 0);
  await fill(lobbies);
  await new Promise((r) => setTimeout(r, 2000));
  const after = await snapshot(pid, into, 1);
  for (const client of clients) client.close();
  node.child.kill("SIGKILL");
  return { before, after };
}

async function floorSide(): Promise<{ before: string; after: string }> {
  const into = mkdtempSync(join(dir, "ws-"));
  const script = fileURLToPath(new URL("./ws-floor.js", import.meta.url));
  const child = fork(script, ["--server"], {
    execArgv: ["--expose-gc", "--import", preload],
    env: { ...process.env, HEAP_SNAPSHOT_DIR: into },
  });
  const { port } = await new Promise<{ port: number }>((resolve) => child.once("message", resolve));
  const open = async (count: number): Promise<void> => {
    for (let i = 0; i < count; i += 100)
      await Promise.all(
        Array.from(
          { length: Math.min(100, count - i) },
          () =>
            new Promise<void>((resolve, reject) => {
              const ws = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
              ws.on("open", () => ws.send("hello"));
              ws.once("message", () => resolve());
              ws.on("error", reject);
            }),
        ),
      );
  };
  await open(400);
  await new Promise((r) => setTimeout(r, 1000));
  const pid = child.pid ?? 0;
  const before = await snapshot(pid, into, 0);
  await open(clientsAdded);
  await new Promise((r) => setTimeout(r, 2000));
  const after = await snapshot(pid, into, 1);
  child.kill("SIGKILL");
  return { before, after };
}

function table(name: string, result: ReturnType<typeof diff>): object {
  const per = (b: number): number => Math.round(b / clientsAdded);
  const sorted = [...result.byOwner.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top);
  const selves = [...result.bySelf.entries()].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, top);
  console.error(`\n== ${name}: ${per(result.total)} B of heap per client (${clientsAdded} clients) ==`);
  console.error("by owner: bytes a client, instances a client, largest parts");
  for (const [label, e] of sorted) {
    const parts = [...e.parts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([l, b]) => `${l} ${per(b)}`)
      .join(", ");
    console.error(
      `  ${String(per(e.bytes)).padStart(6)}  ${label} ×${(e.count / clientsAdded).toFixed(2)}  [${parts}]`,
    );
  }
  console.error("by constructor: bytes a client, instances a client");
  for (const [label, e] of selves)
    console.error(`  ${String(per(e.bytes)).padStart(6)}  ${label} ×${(e.count / clientsAdded).toFixed(2)}`);
  return {
    bytesPerClient: per(result.total),
    byOwner: Object.fromEntries(sorted.map(([l, e]) => [l, per(e.bytes)])),
  };
}

try {
  const foyer = await foyerSide();
  const floor = await floorSide();
  const out = {
    clients: clientsAdded,
    foyer: table("Foyer, embedded node", diff(foyer.before, foyer.after)),
    floor: table("bare ws", diff(floor.before, floor.after)),
  };
  if (flag("json", false)) console.log(JSON.stringify(out));
} finally {
  // --keep: the snapshots stay, for heap-diff.js or a heap viewer.
  if (flag("keep", false)) console.error(`snapshots kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
