// Where a node's CPU went, by part of a cold join: reads a `.cpuprofile` (node --cpu-prof) and charges each
// sample to the first part (in the order below) that any frame of its stack belongs to, then prints each
// part's time per unit (per join: pass the number of joins the profile covers).
//   FOYER_BENCH_NODE_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/p" npx tsx ops/bench/peers/foyer-join.ts \
//     --concurrency 1 --seconds 10 --warm-up-seconds 10 --no-warm     (from the root; prints the joins)
//   node ops/bench/peers/profile-breakdown.js /tmp/p/<the largest file>.cpuprofile <joins> [skip-seconds]
//     [until-seconds]
// skip-seconds: samples of the profile's first seconds are left out (start-up and the untimed warm-up:
// its lobbies, its first joins and the compiling of their code), so <joins> are the timed joins alone;
// until-seconds: so are the samples after it (a fleet node's drain when it is stopped, say).
// A profile's samples are taken at wall-clock intervals: a sample that finds the node inside a system
// call is charged to that call even while the node waits to run again. The node's write to a sleeping
// client wakes it, and on a loaded machine the node may lose its core to it, so "socket writes" is far
// more wall time than CPU time (the process's system CPU time, all calls together, is smaller than it).
import { readFileSync } from "node:fs";
const p = JSON.parse(readFileSync(process.argv[2], "utf8"));
const perUnit = Number(process.argv[3] ?? 1);
const skipMicros = Number(process.argv[4] ?? 0) * 1e6;
const untilMicros = Number(process.argv[5] ?? Infinity) * 1e6;
const byId = new Map(p.nodes.map((x) => [x.id, x]));
const parent = new Map();
for (const x of p.nodes) for (const c of x.children ?? []) parent.set(c, x.id);
const dt = new Map();
let at = 0;
for (let i = 0; i < p.samples.length; i++) {
  at += p.timeDeltas[i] ?? 0;
  if (at >= skipMicros && at < untilMicros)
    dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
}
// [part, test on "function url"]: the first rule any frame of the stack matches wins.
const rules = [
  ["idle", (s) => s.startsWith("(idle)")],
  ["startup (module load)", (s) => /esm\/|cjs\/loader|compileFunction|bootstrap\/realm/.test(s)],
  ["gc", (s) => s.startsWith("(garbage collector)")],
  [
    "socket writes (writev/write syscalls, wall time)",
    (s) => /^(writev|writeUtf8String|writeBuffer|writeLatin1String) /.test(s),
  ],
  ["token verify", (s) => /jwtVerify|jws_verify|webcrypto|jwt\/verify|player-token-verifier/.test(s)],
  ["snapshot encode + store", (s) => /snapshot-writes\.ts|actor-snapshots\.ts|snapshot-codec/.test(s)],
  ["player registry", (s) => /actors\/player\/|player\//.test(s)],
  ["lobby actor (handler, fold)", (s) => /batch-fold|lobby\//.test(s)],
  [
    "http upgrade + ws handshake",
    (s) =>
      /completeUpgrade|handleUpgrade|onUpgrade|_http_server|_http_incoming|onconnection|websocket-server/.test(
        s,
      ),
  ],
  ["ws frame parse/send", (s) => /lib\/receiver|lib\/sender|lib\/websocket\.js|permessage/.test(s)],
  ["sessions/welcome", (s) => /sessions\/|session-binding|onHello|welcome/.test(s)],
  ["request routing + zod", (s) => /requests\/|zod|core\/schemas/.test(s)],
  ["actor runtime (mailbox, effects, delivery)", (s) => /runtime\//.test(s)],
  ["fleet (NATS client, asks between nodes, claims)", (s) => /fleet\/|node_modules\/nats\//.test(s)],
  ["gateway other", (s) => /gateway\//.test(s)],
];
const label = (x) => `${x.callFrame.functionName || "(anon)"} ${x.callFrame.url}`;
const cat = new Map();
let total = 0;
for (const [id, t] of dt) {
  total += t;
  const stack = [];
  let cur = id;
  while (cur !== undefined) {
    stack.push(label(byId.get(cur)));
    cur = parent.get(cur);
  }
  let found = "other";
  outer: for (const [name, test] of rules)
    for (const s of stack)
      if (test(s)) {
        found = name;
        break outer;
      }
  cat.set(found, (cat.get(found) ?? 0) + t);
}
const busy = total - (cat.get("idle") ?? 0) - (cat.get("startup (module load)") ?? 0);
console.log(
  `total ${(total / 1e3).toFixed(0)} ms, busy (no idle/startup) ${(busy / 1e3).toFixed(0)} ms, per unit ${(busy / 1e3 / perUnit).toFixed(3)} ms`,
);
for (const [k, v] of [...cat].sort((a, b) => b[1] - a[1]))
  console.log(
    `${k.padEnd(52)} ${(v / 1e3 / perUnit).toFixed(3).padStart(7)} ms  ${((100 * v) / busy).toFixed(1).padStart(5)}%`,
  );
