// `npm run bench`: for each client count, Foyer's lobby bench (`foyer bench --scenario lobby`, run from the
// repository root, one process) and then the same loop on Colyseus (load.js, one process), one after the
// other so they never share the cores; then Colyseus's memory per idle room and its kill -9.
//
//   --clients 2,8,32   client counts (pairs loop create → join → ready → leave → leave)
//   --seconds 5        seconds of load for each count
//   --idle-rooms 2000  rooms of 8 connected clients for the memory figure (0: skip)
//   --crash-rooms 100  rooms of 8 connected clients when the server is killed (0: skip)
//   --no-foyer         Colyseus only (Foyer's root dependencies are not installed)
//   --json             one JSON object on the last line
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runCrash } from "./crash.js";
import { flag } from "./latency.js";
import { runLoad } from "./load.js";
import { runMemory } from "./memory.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const clientCounts = String(flag("clients", "2,8,32")).split(",").map(Number);
const seconds = Number(flag("seconds", 5));
const idleRooms = Number(flag("idle-rooms", 2000));
const crashRooms = Number(flag("crash-rooms", 100));
const withFoyer = !flag("no-foyer", false) && existsSync(`${root}node_modules/tsx`);
const json = Boolean(flag("json", false));
const say = (line) => json || console.log(line);

function foyerLobby(clients) {
  const out = execFileSync(
    process.execPath,
    [
      `${root}ops/bin/foyer.js`,
      "bench",
      "--scenario",
      "lobby",
      "--clients",
      String(clients),
      "--seconds",
      String(seconds),
      "--json",
    ],
    { cwd: root, encoding: "utf8", maxBuffer: 1 << 24 },
  );
  return JSON.parse(out.trim().split("\n").pop());
}

const ms = (x) => `${x.toFixed(3)} ms`;
const rows = [];
for (const clients of clientCounts) {
  const foyer = withFoyer ? foyerLobby(clients) : null;
  const colyseus = await runLoad(clients, seconds);
  rows.push({ clients, foyer, colyseus });
  say(`${clients} clients`);
  if (foyer)
    say(
      `  foyer     ${String(foyer.opsPerSecond).padStart(6)} ops/s  p50 ${ms(foyer.lobby.p50Ms)}  p99 ${ms(foyer.lobby.p99Ms)}`,
    );
  say(
    `  colyseus  ${String(colyseus.opsPerSecond).padStart(6)} ops/s  p50 ${ms(colyseus.lobby.p50Ms)}  p99 ${ms(colyseus.lobby.p99Ms)}` +
      `  (create p50 ${ms(colyseus.byOp.create.p50Ms)}, join ${ms(colyseus.byOp.join.p50Ms)}, ready ${ms(colyseus.byOp.ready.p50Ms)}, leave ${ms(colyseus.byOp.leave.p50Ms)})`,
  );
  if (foyer) say(`  foyer / colyseus: ${(foyer.opsPerSecond / colyseus.opsPerSecond).toFixed(1)}× ops/s`);
}
const memory = idleRooms > 0 ? await runMemory(idleRooms) : null;
if (memory)
  say(
    `colyseus idle rooms (8 connected clients each, ${idleRooms} rooms): ${memory.heapBytesPerRoom} heap bytes a room ` +
      `(${memory.heapBytesPerClient} a client), ${memory.rssBytesPerRoom} RSS bytes a room`,
  );
if (rows[0]?.foyer)
  say(
    `foyer idle lobby (8 members, lobby state without sockets): ${rows[0].foyer.bytesPerIdleLobby} heap bytes`,
  );
const crash = crashRooms > 0 ? await runCrash(crashRooms) : null;
if (crash)
  say(
    `colyseus kill -9 with ${crash.rooms} rooms / ${crash.clients} clients: ${crash.clientsToldLeft} clients told ` +
      `(onLeave ${JSON.stringify(crash.closeCodes)}) after p50 ${ms(crash.leaveAfterKill.p50Ms)}, max ${ms(crash.leaveAfterKill.maxMs)}; ` +
      `rooms lost ${crash.roomsLost}/${crash.rooms}; rejoin by code: ${JSON.stringify(crash.rejoinByCode)}; ` +
      `reconnect with token: ${JSON.stringify(crash.reconnectWithToken.errors)}`,
  );
if (json) console.log(JSON.stringify({ seconds, rows, memory, crash }));
process.exit(0);
