// `npm run bench`: the same scenarios on Foyer and on Colyseus, one server process each, one after the
// other so they never share the cores; prints both, their ratios and whether Foyer meets its targets
// against Colyseus (each row's `target`).
//
//   --parts loop,cold,seated,crash   which parts to run (default all):
//       loop    the lobby loop: `foyer bench --scenario lobby` beside load.js (server and clients in one
//               process, as Foyer's bench), for each --clients count
//       cold    cold join (new connection + join by code / joinById) and Foyer's warm ops (join / leave on
//               an open socket), at each --concurrency: foyer-join.ts beside cold-join.js
//       seated  --seated-rooms rooms of 8 connected clients: RSS and heap per seated client, then the
//               server's CPU over --idle-seconds with all of them idle: foyer-memory.ts beside memory.js
//       crash   kill -9 under --crash-rooms rooms of 8 clients: foyer-crash.ts (a fleet of 3) beside
//               crash.js
//   --clients 2,8,32     loop: client counts          --concurrency 1,200  cold: concurrent clients
//   --seconds 5          seconds of load per count    --seated-rooms 1000  --idle-seconds 30
//   --warm-up-seconds 3  cold: untimed joins before each timed phase, on all three servers alike
//   --crash-rooms 100    --no-foyer (Colyseus only)   --json (one JSON object on the last line)
//   --liveness-ms N      seated: Foyer's SDK clients' livenessMs (default the SDK's; 0: no client pings)
//   --settle-seconds S   seated: every server (and floor) sits S s idle before each memory reading, so the
//                        figures are of clients seated a while: Foyer's idle actors passivate after a
//                        minute, and each process hands the fill's garbage back (95 covers both)
//
// The cold and seated parts also measure the floor under both servers (ws-floor.js): a bare `ws` server
// that only echoes, and for memory a bare `node:net` server. The summary shows the floor ÷ Colyseus
// beside Foyer ÷ Colyseus: a target the floor itself misses is out of reach for any server on `ws` here.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runColdJoin } from "./cold-join.js";
import { runCrash } from "./crash.js";
import { flag } from "./latency.js";
import { runLoad } from "./load.js";
import { runMemory } from "./memory.js";
import { runColdFloor, runMemoryFloor } from "./ws-floor.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const parts = new Set(String(flag("parts", "loop,cold,seated,crash")).split(","));
const clientCounts = String(flag("clients", "2,8,32")).split(",").map(Number);
const concurrencies = String(flag("concurrency", "1,200")).split(",").map(Number);
const seconds = Number(flag("seconds", 5));
// Cold: a server that has served one join still compiles its hot code while the clock runs; a server
// that has run for a while has not. Each cold phase of all three servers first joins for this long.
const warmUpSeconds = Number(flag("warm-up-seconds", 3));
const seatedRooms = Number(flag("seated-rooms", flag("idle-rooms", 1000)));
const idleSeconds = Number(flag("idle-seconds", 30));
const settleSeconds = Number(flag("settle-seconds", 0));
const crashRooms = Number(flag("crash-rooms", 100));
const livenessMs = flag("liveness-ms", undefined);
const withFoyer = !flag("no-foyer", false) && existsSync(`${root}node_modules/.bin/tsx`);
const json = Boolean(flag("json", false));
// With --json the readable lines go to stderr, so one run gives both.
const say = (line) => (json ? console.error(line) : console.log(line));

function lastJson(out) {
  return JSON.parse(out.trim().split("\n").pop());
}
function foyer(script, args) {
  // Foyer's side runs from the repository root on the root's own packages (tsx, ws, ...).
  try {
    const out = execFileSync(`${root}node_modules/.bin/tsx`, [`ops/bench/peers/${script}`, ...args], {
      cwd: root,
      encoding: "utf8",
      maxBuffer: 1 << 24,
      stdio: ["ignore", "pipe", "inherit"],
    });
    return lastJson(out);
  } catch (error) {
    say(`  foyer ${script} failed: ${String(error.message).split("\n")[0]}`);
    return null;
  }
}
function foyerLobby(clients) {
  const args = [
    "bench",
    "--scenario",
    "lobby",
    "--clients",
    String(clients),
    "--seconds",
    String(seconds),
    "--json",
  ];
  const out = execFileSync(process.execPath, [`${root}ops/bin/foyer.js`, ...args], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 1 << 24,
  });
  return lastJson(out);
}

const ms = (x) => `${x.toFixed(3)} ms`;
const ratio = (a, b) => (a != null && b ? Number((a / b).toFixed(2)) : null);
const result = { seconds, warmUpSeconds, loop: [], cold: null, seated: null, crash: null, summary: [] };

if (parts.has("loop")) {
  say("== lobby loop (create → join → ready → leave → leave; server and clients in one process) ==");
  for (const clients of clientCounts) {
    const f = withFoyer ? foyerLobby(clients) : null;
    const c = await runLoad(clients, seconds);
    result.loop.push({ clients, foyer: f, colyseus: c });
    say(`${clients} clients`);
    if (f)
      say(
        `  foyer     ${String(f.opsPerSecond).padStart(6)} ops/s  p50 ${ms(f.lobby.p50Ms)}  p99 ${ms(f.lobby.p99Ms)}`,
      );
    say(
      `  colyseus  ${String(c.opsPerSecond).padStart(6)} ops/s  p50 ${ms(c.lobby.p50Ms)}  p99 ${ms(c.lobby.p99Ms)}` +
        `  (create p50 ${ms(c.byOp.create.p50Ms)}, join ${ms(c.byOp.join.p50Ms)}, ready ${ms(c.byOp.ready.p50Ms)}, leave ${ms(c.byOp.leave.p50Ms)})`,
    );
    if (f) say(`  foyer / colyseus: ${ratio(f.opsPerSecond, c.opsPerSecond)}× ops/s`);
  }
}

if (parts.has("cold")) {
  say("== cold join (new connection + join by code / joinById) and warm ops; server in its own process ==");
  const f = withFoyer
    ? foyer("foyer-join.ts", [
        ...["--concurrency", concurrencies.join(","), "--seconds", String(seconds)],
        ...["--warm-up-seconds", String(warmUpSeconds)],
      ])
    : null;
  const c = await runColdJoin(concurrencies, seconds, warmUpSeconds);
  const floor = await runColdFloor(concurrencies, seconds, warmUpSeconds).catch((error) => {
    say(`  the ws floor failed: ${String(error?.message ?? error).split("\n")[0]}`);
    return [];
  });
  result.cold = { foyer: f, colyseus: c, floor };
  concurrencies.forEach((concurrency, i) => {
    const fc = f?.cold[i];
    const fw = f?.warm[i];
    const cc = c[i];
    const fl = floor[i]; // undefined when the floor run failed
    say(`${concurrency} concurrent clients`);
    if (fc)
      say(
        `  foyer cold join     ${String(fc.joinsPerSecond).padStart(6)} /s  p50 ${ms(fc.join.p50Ms)}  p99 ${ms(fc.join.p99Ms)}  server CPU ${ms(fc.serverCpuMsPerJoin)}/join  errors ${JSON.stringify(fc.errors)}`,
      );
    say(
      `  colyseus joinById   ${String(cc.joinsPerSecond).padStart(6)} /s  p50 ${ms(cc.join.p50Ms)}  p99 ${ms(cc.join.p99Ms)}  server CPU ${ms(cc.serverCpuMsPerJoin)}/join  errors ${JSON.stringify(cc.errors)}`,
    );
    if (fl)
      say(
        `  floor: bare ws    ${String(fl.connectionsPerSecond).padStart(6)} /s  p50 ${ms(fl.connect.p50Ms)}  p99 ${ms(fl.connect.p99Ms)}  server CPU ${ms(fl.serverCpuMsPerConnection)}/connection (new socket, one echo)`,
      );
    if (fw)
      say(
        `  foyer warm ops      ${String(fw.opsPerSecond).padStart(6)} /s  p50 ${ms(fw.op.p50Ms)}  p99 ${ms(fw.op.p99Ms)}  errors ${JSON.stringify(fw.errors)}`,
      );
    if (fc) {
      const throughput = ratio(fc.joinsPerSecond, cc.joinsPerSecond);
      const p99 = ratio(fc.join.p99Ms, cc.join.p99Ms);
      result.summary.push({
        metric: `cold join, ${concurrency} clients: throughput`,
        foyer: fc.joinsPerSecond,
        colyseus: cc.joinsPerSecond,
        ratio: throughput,
        target: "≥ 2",
        met: throughput >= 2,
        ...(fl ? { floor: { ws: ratio(fl.connectionsPerSecond, cc.joinsPerSecond) } } : {}),
      });
      const cpu = ratio(fc.serverCpuMsPerJoin, cc.serverCpuMsPerJoin);
      result.summary.push({
        metric: `cold join, ${concurrency} clients: server CPU ms/join`,
        foyer: fc.serverCpuMsPerJoin,
        colyseus: cc.serverCpuMsPerJoin,
        ratio: cpu,
        target: "≤ 0.5",
        met: cpu <= 0.5,
        ...(fl ? { floor: { ws: ratio(fl.serverCpuMsPerConnection, cc.serverCpuMsPerJoin) } } : {}),
      });
      result.summary.push({
        metric: `cold join, ${concurrency} clients: p99 ms`,
        foyer: fc.join.p99Ms,
        colyseus: cc.join.p99Ms,
        ratio: p99,
        target: "—",
        met: null,
        ...(fl ? { floor: { ws: ratio(fl.connect.p99Ms, cc.join.p99Ms) } } : {}),
      });
    }
    if (fw) {
      const warm = ratio(fw.opsPerSecond, cc.joinsPerSecond);
      result.summary.push({
        metric: `warm ops/s vs joinById/s, ${concurrency} clients`,
        foyer: fw.opsPerSecond,
        colyseus: cc.joinsPerSecond,
        ratio: warm,
        target: "≥ 10",
        met: warm >= 10,
      });
    }
  });
}

if (parts.has("seated") && seatedRooms > 0) {
  say(
    `== ${seatedRooms} rooms of 8 connected clients: memory${settleSeconds > 0 ? ` after ${settleSeconds} s idle` : ""}, then ${idleSeconds} s idle; server in its own process ==`,
  );
  const f = withFoyer
    ? foyer("foyer-memory.ts", [
        ...["--lobbies", String(seatedRooms), "--idle-seconds", String(idleSeconds)],
        ...["--settle-seconds", String(settleSeconds)],
        ...(livenessMs === undefined ? [] : ["--liveness-ms", String(livenessMs)]),
      ])
    : null;
  const c = await runMemory(seatedRooms, { idleSeconds, settleSeconds });
  const floorOf = (tcp) =>
    runMemoryFloor(seatedRooms * 8, { tcp, idleSeconds, settleSeconds }).catch((error) => {
      say(`  the ${tcp ? "node:net" : "ws"} floor failed: ${String(error?.message ?? error).split("\n")[0]}`);
      return null;
    });
  const floorWs = await floorOf(false);
  const floorTcp = await floorOf(true);
  result.seated = { foyer: f, colyseus: c, floor: { ws: floorWs, tcp: floorTcp } };
  const line = (name, m) =>
    `  ${name} RSS ${m.rssBytesPer1000Clients} B per 1,000 seated clients (${m.rssBytesPerRoom ?? m.rssBytesPerLobby} a room), heap ${m.heapBytesPerClient} B a client; ` +
    `idle CPU ${m.idle ? `${m.idle.percentOfCore} % of a core (${m.idle.cpuSeconds} s in ${m.idle.seconds} s)` : "not measured"}; filled in ${m.fillSeconds} s`;
  if (f) say(line("foyer   ", f));
  say(line("colyseus", c));
  for (const fl of [floorWs, floorTcp].filter((f) => f !== null))
    say(
      `  floor: bare ${fl.server.padEnd(8)} RSS ${fl.rssPerConnection * 1000} B per 1,000 connections, heap ${fl.heapPerConnection} B a connection` +
        (fl.idle
          ? `; idle CPU pinging as Foyer does ${fl.idle.percentOfCore} % of a core (${fl.idle.cpuSeconds} s in ${fl.idle.seconds} s)`
          : ""),
    );
  if (f) {
    const rss = ratio(f.rssBytesPer1000Clients, c.rssBytesPer1000Clients);
    result.summary.push({
      metric: `RSS per 1,000 seated clients${settleSeconds > 0 ? `, ${settleSeconds} s seated` : ""}, bytes`,
      foyer: f.rssBytesPer1000Clients,
      colyseus: c.rssBytesPer1000Clients,
      ratio: rss,
      // Against the floor in the same run: a seated client may hold 1.5 KB more than a bare `ws` socket.
      target: "≤ ws + 1.5 KB",
      met: floorWs ? f.rssBytesPer1000Clients / 1000 <= floorWs.rssPerConnection + 1536 : null,
      floor: {
        ...(floorWs ? { ws: ratio(floorWs.rssPerConnection * 1000, c.rssBytesPer1000Clients) } : {}),
        ...(floorTcp
          ? { "node:net": ratio(floorTcp.rssPerConnection * 1000, c.rssBytesPer1000Clients) }
          : {}),
      },
    });
    if (f.idle)
      result.summary.push({
        metric: `idle CPU, ${seatedRooms} lobbies of 8${settleSeconds > 0 ? `, ${settleSeconds} s seated` : ""}, % of a core`,
        foyer: f.idle.percentOfCore,
        colyseus: c.idle?.percentOfCore ?? null,
        ratio: ratio(f.idle.percentOfCore, c.idle?.percentOfCore),
        target: "Foyer < 1 %",
        met: f.idle.percentOfCore < 1,
        // A bare `ws` server pinging its idle sockets as Foyer does (every 30 s): no less can Foyer spend.
        ...(floorWs?.idle ? { floor: { ws: ratio(floorWs.idle.percentOfCore, c.idle?.percentOfCore) } } : {}),
      });
  }
}

if (parts.has("crash") && crashRooms > 0) {
  say(`== kill -9 with ${crashRooms} rooms of 8 connected clients ==`);
  const f = withFoyer ? foyer("foyer-crash.ts", ["--lobbies", String(crashRooms), "--members", "8"]) : null;
  const c = await runCrash(crashRooms);
  result.crash = { foyer: f, colyseus: c };
  if (f)
    say(
      `  foyer (fleet of 3, one killed): ${f.clientsDropped} sockets dropped after p50 ${f.dropAfterKill.p50Ms} ms; ` +
        `${f.clientsServedAgain}/${f.clients} clients served again after p50 ${f.servedAgainAfterKill.p50Ms} ms, p99 ${f.servedAgainAfterKill.p99Ms} ms; ` +
        `lobbies lost ${f.lobbiesLost ?? "?"}/${f.lobbies}`,
    );
  say(
    `  colyseus (one process, killed): ${c.clientsToldLeft} clients told (onLeave ${JSON.stringify(c.closeCodes)}) after p50 ${ms(c.leaveAfterKill.p50Ms)}, max ${ms(c.leaveAfterKill.maxMs)}; ` +
      `rooms lost ${c.roomsLost}/${c.rooms}; rejoin by code: ${JSON.stringify(c.rejoinByCode)}; reconnect with token: ${JSON.stringify(c.reconnectWithToken.errors)}`,
  );
  if (f)
    result.summary.push({
      metric: "rooms lost to kill -9",
      foyer: f.lobbiesLost ?? null,
      colyseus: c.roomsLost,
      ratio: null,
      target: "—",
      met: null,
    });
}

if (result.summary.length > 0) {
  say("== summary: Foyer ÷ Colyseus against the targets ==");
  // floor ÷ colyseus: what a bare `ws` server (and for memory a bare `node:net` one) reaches; where the
  // `ws` floor misses the target too, no server on `ws` can meet it on this machine.
  const rows = [["metric", "foyer", "colyseus", "foyer ÷ colyseus", "target", "met", "floor ÷ colyseus"]];
  for (const s of result.summary)
    rows.push([
      s.metric,
      String(s.foyer),
      String(s.colyseus),
      s.ratio == null ? "—" : `${s.ratio}×`,
      s.target,
      s.met == null ? "—" : s.met ? "yes" : "NO",
      s.floor == null
        ? "—"
        : Object.entries(s.floor)
            .map(([name, r]) => `${r}× (${name})`)
            .join(", "),
    ]);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows)
    say(r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  "));
}
if (json) console.log(JSON.stringify(result));
process.exit(0);
