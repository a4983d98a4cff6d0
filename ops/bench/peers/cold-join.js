// Cold join on Colyseus: the server in its own process (child.js) with rooms whose hosts stay seated; C
// clients at once each loop "new Client → joinById(code)" (Colyseus's way in: an HTTP matchmaking
// request, then a new WebSocket to the room), timed until the join resolves, then leave (closes the
// socket, not timed) and again. At most 6 joiners a room, so a seat is always free while a leave is still
// on its way. Untimed joins for `warmUpSeconds` first (at least one round per client), so the timed
// joins measure a server whose hot code is compiled, as a server that has run for a while is.
// foyer-join.ts does the same on Foyer (a new socket + `join` by code).
import { Client } from "colyseus.js";
import { forkServer } from "./child.js";
import { flag, summarize } from "./latency.js";
import { cpuSeconds } from "./proc.js";

export const joinersPerRoom = 6;

export async function runColdJoin(concurrencies, seconds, warmUpSeconds = 0) {
  const server = forkServer();
  const { url } = await server.ready;
  const hosts = [];
  const results = [];
  for (const concurrency of concurrencies) {
    const rooms = Math.ceil(concurrency / joinersPerRoom);
    while (hosts.length < rooms) hosts.push(await new Client(url).create("lobby", { name: "Host" }));
    const latencies = [];
    const errors = {};
    const loop = async (w, deadline, timed) => {
      const code = hosts[Math.floor(w / joinersPerRoom)].roomId;
      do {
        const t0 = performance.now();
        try {
          const room = await new Client(url).joinById(code, { name: `W${w}` });
          if (timed) latencies.push(performance.now() - t0);
          await room.leave();
        } catch (error) {
          const key = String(error?.message ?? error).slice(0, 80);
          errors[key] = (errors[key] ?? 0) + 1;
        }
      } while (performance.now() < deadline);
    };
    const warmUntil = performance.now() + warmUpSeconds * 1000;
    await Promise.all(Array.from({ length: concurrency }, (_, w) => loop(w, warmUntil, false)));
    const started = performance.now();
    const cpu0 = cpuSeconds(server.child.pid);
    const deadline = started + seconds * 1000;
    await Promise.all(Array.from({ length: concurrency }, (_, w) => loop(w, deadline, true)));
    const elapsedS = (performance.now() - started) / 1000;
    const cpuS = cpuSeconds(server.child.pid) - cpu0;
    results.push({
      concurrency,
      joins: latencies.length,
      joinsPerSecond: Math.round(latencies.length / elapsedS),
      join: summarize(latencies),
      // The server's CPU time per timed join (its leave included): steadier than wall time.
      serverCpuMsPerJoin: Number(((cpuS * 1000) / Math.max(1, latencies.length)).toFixed(3)),
      errors,
    });
  }
  for (const host of hosts) host.connection.close();
  server.child.kill("SIGKILL");
  return results;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const concurrencies = String(flag("concurrency", "1,200")).split(",").map(Number);
  const warmUp = Number(flag("warm-up-seconds", 0));
  console.log(JSON.stringify(await runColdJoin(concurrencies, Number(flag("seconds", 5)), warmUp)));
  process.exit(0);
}
