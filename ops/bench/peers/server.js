// A Colyseus server with the lobby room. Imported: `startServer(port)` runs it in this process. Run as a
// script (`node --expose-gc server.js [port]`, forked by memory.js and crash.js): it listens, tells its
// parent the port, and answers `{ type: "heap" }` with the heap after a full GC.
import { Server } from "@colyseus/core";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { LobbyRoom } from "./lobby-room.js";

export async function startServer(port = 0) {
  const transport = new WebSocketTransport();
  const server = new Server({ transport, greet: false, gracefullyShutdown: false });
  server.define("lobby", LobbyRoom);
  await server.listen(port, "127.0.0.1");
  const address = transport.server.address();
  return {
    port: address.port,
    url: `http://127.0.0.1:${address.port}`,
    stop: () => server.gracefullyShutdown(false),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { port } = await startServer(Number(process.argv[2] ?? 0));
  process.on("message", (message) => {
    if (message?.type !== "heap") return;
    globalThis.gc?.();
    globalThis.gc?.();
    process.send?.({
      type: "heap",
      heapUsed: process.memoryUsage().heapUsed,
      rss: process.memoryUsage().rss,
    });
  });
  process.send?.({ type: "ready", port });
  if (!process.send) console.log(`colyseus lobby server on ws://127.0.0.1:${port}`);
}
