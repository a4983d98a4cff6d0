// What an idle lobby (one connected host) costs each node of a fleet, by part: a fleet of `--nodes` node
// processes on one NATS server takes a heap snapshot of every node, opens `--lobbies` idle lobbies spread
// over the nodes, and takes another; heap-diff.js counts what each node allocated in between and
// still holds, by owner, per lobby of the fleet. Run it at 1 and 2 nodes: a part that grows with the
// nodes is one every node keeps for every lobby, not only for those it owns.
//   npx tsx ops/bench/peers/fleet-heap-breakdown.ts [--nodes 2] [--lobbies 400] [--top 25]
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createNodeClient, type FoyerClient } from "../../../gateway/index.ts";
import { startNats } from "../../nats/index.ts";
import { startNodeProcess, type NodeProcess } from "../../node/node-process.ts";
import { benchNodeFlags, benchToken, benchTokenKeys } from "../bench-key.ts";
import { diff } from "./heap-diff.js";
import { flag } from "./latency.js";

const size = Number(flag("nodes", 2));
const lobbies = Number(flag("lobbies", 400));
const top = Number(flag("top", 25));
const preload = fileURLToPath(new URL("./heap-snapshot-on-signal.mjs", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "foyer-fleet-heap-"));
process.env.HEAP_SNAPSHOT_DIR = dir;

async function snapshotAll(nodes: readonly NodeProcess[], n: number): Promise<string[]> {
  return Promise.all(
    nodes.map(async (node) => {
      const pid = node.child.pid ?? 0;
      process.kill(pid, "SIGUSR2");
      while (!existsSync(join(dir, `${pid}-${n}.done`))) await new Promise((r) => setTimeout(r, 200));
      return join(dir, `${pid}-${n}.heapsnapshot`);
    }),
  );
}

const nats = await startNats({ servers: 1 });
const nodes: NodeProcess[] = [];
const clients: FoyerClient[] = [];
try {
  const prefix = `h${randomBytes(3).toString("hex")}`;
  const sessionSecret = randomBytes(24).toString("base64url");
  for (let i = 0; i < size; i++)
    nodes.push(
      startNodeProcess({
        id: `${prefix}-n${i + 1}`,
        natsUrls: nats.urls,
        natsReplicas: 1,
        tokenKeys: benchTokenKeys,
        sessionSecret,
        flags: {
          ...benchNodeFlags,
        },
        nodeArgs: ["--expose-gc", "--import", preload],
      }),
    );
  const urls = await Promise.all(nodes.map((node) => node.url));
  const open = async (from: number, count: number): Promise<void> => {
    for (let i = from; i < from + count; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, from + count - i) }, async (_, j) => {
          const client = createNodeClient({
            urls: [urls[(i + j) % size] ?? ""],
            token: benchToken(`${prefix}-idle-${i + j}`),
            callTimeoutMs: 30_000,
          });
          clients.push(client);
          await client.connect();
          await client.create();
        }),
      );
  };
  await new Promise((r) => setTimeout(r, 2_000));
  await open(0, 50); // warm-up
  await new Promise((r) => setTimeout(r, 2_000));
  const before = await snapshotAll(nodes, 0);
  await open(50, lobbies);
  await new Promise((r) => setTimeout(r, 3_000));
  const after = await snapshotAll(nodes, 1);
  const owners = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < size; i++) {
    const result = diff(before[i] ?? "", after[i] ?? "");
    total += result.total;
    for (const [label, entry] of result.byOwner) owners.set(label, (owners.get(label) ?? 0) + entry.bytes);
  }
  console.log(
    `== ${size} node(s), ${lobbies} idle lobbies: ${Math.round(total / lobbies)} B of heap per lobby, all nodes ==`,
  );
  for (const [label, bytes] of [...owners.entries()].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${String(Math.round(bytes / lobbies)).padStart(6)}  ${label}`);
} finally {
  for (const client of clients) client.close();
  for (const node of nodes) node.child.kill("SIGKILL");
  await Promise.all(nodes.map((node) => node.exited));
  await nats.stop();
  if (flag("keep", false)) console.error(`snapshots kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
