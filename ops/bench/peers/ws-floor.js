// The memory floor of a seated client on any server built on `ws`: a bare `ws` server in its own process
// (with --expose-gc) holds N connections from this process, each of which sent one message and had it
// echoed; its heap after a full GC and its RSS are read before and after, as memory.js and
// foyer-memory.ts read Colyseus's and Foyer's. Both servers use `ws` (8.x) for their sockets, so neither
// can hold a seated client in less than this. Usage: node ws-floor.js [--connections 8000]
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import WebSocket, { WebSocketServer } from "ws";
import { flag } from "./latency.js";

if (process.argv.includes("--server")) {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  const held = [];
  server.on("connection", (ws) => {
    held.push(ws);
    ws.on("message", (data) => ws.send(data));
  });
  server.on("listening", () => process.send?.({ port: server.address().port }));
  process.on("message", () => {
    globalThis.gc?.();
    globalThis.gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    process.send?.({ heap: heapUsed, rss, held: held.length });
  });
} else {
  const connections = Number(flag("connections", 8000));
  const child = fork(fileURLToPath(import.meta.url), ["--server"], { execArgv: ["--expose-gc"] });
  const next = () => new Promise((resolve) => child.once("message", resolve));
  const { port } = await next();
  const open = async (count, batch = 100) => {
    for (let i = 0; i < count; i += batch)
      await Promise.all(
        Array.from(
          { length: Math.min(batch, count - i) },
          () =>
            new Promise((resolve, reject) => {
              const ws = new WebSocket(`ws://127.0.0.1:${port}`);
              ws.on("open", () => {
                ws.send("hello");
                ws.once("message", resolve);
              });
              ws.on("error", reject);
            }),
        ),
      );
  };
  const read = () => {
    const answer = next();
    child.send("read");
    return answer;
  };
  await open(400); // warm up, as the other memory benches do
  await new Promise((r) => setTimeout(r, 1000));
  const before = await read();
  await open(connections);
  await new Promise((r) => setTimeout(r, 2000));
  const after = await read();
  child.kill("SIGKILL");
  console.log(
    JSON.stringify({
      connections,
      heapPerConnection: Math.round((after.heap - before.heap) / connections),
      rssPerConnection: Math.round((after.rss - before.rss) / connections),
    }),
  );
  process.exit(0);
}
