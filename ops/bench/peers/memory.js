// Memory per idle room: the Colyseus server runs in its own process; this process fills it with rooms of
// 8 connected clients (one creates, seven join by id) and asks the server for its heap after a full GC,
// before and after. Unlike Foyer's figure (lobby state on the runtime, no sockets), a Colyseus room's
// members are its sockets, so the figure includes 8 server-side WebSockets and their Client objects.
import { Client } from "colyseus.js";
import { forkServer } from "./child.js";
import { flag } from "./latency.js";

export async function runMemory(rooms, members = 8) {
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
  const before = await server.heap();
  const t0 = performance.now();
  await fill(rooms);
  const fillS = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 500));
  const after = await server.heap();
  for (const room of open) room.connection.close();
  server.child.kill("SIGKILL");
  return {
    rooms,
    members,
    heapBytesPerRoom: Math.round((after.heapUsed - before.heapUsed) / rooms),
    rssBytesPerRoom: Math.round((after.rss - before.rss) / rooms),
    heapBytesPerClient: Math.round((after.heapUsed - before.heapUsed) / rooms / members),
    fillSeconds: Number(fillS.toFixed(1)),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runMemory(Number(flag("rooms", 500)))));
  process.exit(0);
}
