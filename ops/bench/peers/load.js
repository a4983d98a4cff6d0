// The lobby loop of `foyer bench --scenario lobby`, on Colyseus: N clients in pairs loop
// create → join → ready → leave → leave, the server and the clients in this one process (as Foyer's bench).
// Each create and join is Colyseus's own path: an HTTP matchmaking request, then a new WebSocket to the
// room; a leave closes that socket. `ready` is a room message answered by an "ok" message after the
// state patch went out.
import { Client } from "colyseus.js";
import { flag, summarize } from "./latency.js";
import { startServer } from "./server.js";

export async function runLoad(clients, seconds) {
  const server = await startServer(0);
  const sdk = Array.from({ length: clients }, () => new Client(server.url));
  const latencies = { create: [], join: [], ready: [], leave: [], all: [] };
  const op = async (kind, fn) => {
    const t0 = performance.now();
    const value = await fn();
    const ms = performance.now() - t0;
    latencies[kind].push(ms);
    latencies.all.push(ms);
    return value;
  };
  let nextId = 0;
  const ready = (room) =>
    new Promise((resolve) => {
      const id = ++nextId;
      const off = room.onMessage("ok", (answered) => {
        if (answered !== id) return;
        off();
        resolve();
      });
      room.send("ready", { ready: true, id });
    });
  // One warm-up round per pair so module loading and JIT do not count.
  const pairs = Math.max(1, Math.floor(clients / 2));
  const loop = async (p, deadline, record) => {
    const host = sdk[2 * p];
    const guest = sdk[2 * p + 1];
    do {
      const hostRoom = await record("create", () => host.create("lobby", { name: `H${p}` }));
      const guestRoom = guest
        ? await record("join", () => guest.joinById(hostRoom.roomId, { name: `G${p}` }))
        : null;
      await record("ready", () => ready(hostRoom));
      if (guestRoom) await record("leave", () => guestRoom.leave());
      await record("leave", () => hostRoom.leave());
    } while (performance.now() < deadline);
  };
  await Promise.all(Array.from({ length: pairs }, (_, p) => loop(p, 0, (_k, fn) => fn())));
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(Array.from({ length: pairs }, (_, p) => loop(p, deadline, op)));
  const elapsedS = (performance.now() - started) / 1000;
  await server.stop();
  return {
    clients,
    seconds,
    ops: latencies.all.length,
    opsPerSecond: Math.round(latencies.all.length / elapsedS),
    lobby: summarize(latencies.all),
    byOp: Object.fromEntries(["create", "join", "ready", "leave"].map((k) => [k, summarize(latencies[k])])),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runLoad(Number(flag("clients", 32)), Number(flag("seconds", 5)));
  console.log(JSON.stringify(result));
  process.exit(0);
}
