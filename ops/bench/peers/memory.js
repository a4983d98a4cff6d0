// Memory per seated room and idle CPU: the Colyseus server runs in its own process; this process fills it
// with rooms of 8 connected clients (one creates, seven join by id) and asks the server for its heap after
// a full GC and its RSS, before and after; then it reads the server's CPU time (/proc/<pid>/stat) over
// `idleSeconds` while every client stays connected and nothing is asked. Unlike Foyer's lobby-state
// figure, a Colyseus room's members are its sockets, so the figure includes 8 server-side WebSockets and
// their Client objects (foyer-memory.ts measures Foyer the same way). `settleSeconds` > 0 waits that long
// before each memory reading instead of 1 s and 2 s, as foyer-memory.ts's --settle-seconds.
import { Client } from "colyseus.js";
import { forkServer } from "./child.js";
import { flag, settleWait } from "./latency.js";
import { idleCpu } from "./proc.js";

export async function runMemory(rooms, { members = 8, idleSeconds = 30, settleSeconds = 0 } = {}) {
  const server = forkServer();
  const { url } = await server.ready;
  const open = [];
  const fill = async (count, batch = 16) => {
    for (let i = 0; i < count; i += batch) {
      await Promise.all(
        Array.from({ length: Math.min(batch, count - i) }, async () => {
          const host = await new Client(url).create("lobby", { name: "Player 0" });
          open.push(host);
          for (let m = 1; m < members; m++)
            open.push(await new Client(url).joinById(host.roomId, { name: `Player ${m}` }));
        }),
      );
    }
  };
  await fill(50); // warm up, as Foyer's bench does, so JIT and first maps do not count as room state
  await settleWait(settleSeconds, 1000);
  const before = await server.heap();
  const t0 = performance.now();
  await fill(rooms);
  const fillS = (performance.now() - t0) / 1000;
  await settleWait(settleSeconds, 2000);
  const after = await server.heap();
  const idle = idleSeconds > 0 ? await idleCpu(server.child.pid, idleSeconds) : null;
  for (const room of open) room.connection.close();
  server.child.kill("SIGKILL");
  return {
    rooms,
    members,
    settleSeconds,
    heapBytesPerRoom: Math.round((after.heapUsed - before.heapUsed) / rooms),
    heapBytesPerClient: Math.round((after.heapUsed - before.heapUsed) / rooms / members),
    rssBytesPerRoom: Math.round((after.rss - before.rss) / rooms),
    rssBytesPer1000Clients: Math.round(((after.rss - before.rss) / rooms / members) * 1000),
    rssBytes: after.rss,
    fillSeconds: Number(fillS.toFixed(1)),
    idle,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runMemory(Number(flag("rooms", 1000)), {
    idleSeconds: Number(flag("idle-seconds", 30)),
    settleSeconds: Number(flag("settle-seconds", 0)),
  });
  console.log(JSON.stringify(result));
  process.exit(0);
}
