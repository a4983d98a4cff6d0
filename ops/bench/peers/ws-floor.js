// The floors under any server built on `ws`, which both Foyer and Colyseus use for their sockets: what a
// bare server that only echoes costs, so a target below it is out of reach for either.
//
// Memory (default): a bare `ws` server in its own process (with --expose-gc) holds N connections from this
// process, each of which sent one message and had it echoed; its heap after a full GC and its RSS are read
// before and after, as memory.js and foyer-memory.ts read Colyseus's and Foyer's. With --tcp the same
// with a bare `node:net` server and plain TCP sockets: what Node itself holds per connection, under any
// WebSocket library written in JavaScript.
//
// Idle (--idle-seconds S, beside memory): then the bare `ws` server pings its sockets as a Foyer node does
// (docs/protocol.md, Heartbeat): every 15 s each socket it has heard nothing from since the round before,
// so an idle one gets a ping every 30 s; its CPU over S seconds, from 22.5 s or more after the rounds start
// (when the sockets are as a Foyer node's are after its fill: each pinged once in any 30 s; S a multiple of
// 30 keeps that true), is what an idle server with that liveness costs before it does anything of its own.
// With --settle-seconds the rounds run from the warm-up on, as a Foyer node's pings do while it settles.
//
// Cold (--cold): C clients at once each loop "new `ws` connection → one message → its echo", timed to the
// echo, then one more message and its echo and a close (not timed), against the bare `ws` server, as
// cold-join.js and foyer-join.ts time a cold join and then leave (a request and its answer) and close: no
// server answers a join on a new WebSocket sooner, or more often, on this machine.
//
// --settle-seconds S waits S s before each memory reading instead of 1 s and 2 s, as foyer-memory.ts's.
//
// Usage: node ws-floor.js [--connections 8000] [--tcp] [--idle-seconds 30] [--settle-seconds 95]
//        node ws-floor.js --cold [--concurrency 1,200] [--seconds 5]
import { fork } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";
import WebSocket, { WebSocketServer } from "ws";
import { flag, settleWait, summarize } from "./latency.js";
import { cpuSeconds, idleCpu } from "./proc.js";

function serve(tcp) {
  const held = new Set();
  const ready = (port) => process.send?.({ port });
  if (tcp) {
    const server = net.createServer((socket) => {
      held.add(socket);
      socket.on("data", (data) => socket.write(data));
      socket.on("close", () => held.delete(socket));
    });
    server.listen(0, "127.0.0.1", () => ready(server.address().port));
  } else {
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
    server.on("connection", (ws) => {
      held.add(ws);
      ws.heard = false;
      ws.on("message", (data) => {
        ws.heard = true;
        ws.send(data);
      });
      ws.on("pong", () => (ws.heard = true));
      ws.on("close", () => held.delete(ws));
    });
    server.on("listening", () => ready(server.address().port));
  }
  process.on("message", (message) => {
    if (message?.heartbeatMs) {
      // A round pings the sockets not heard since the last one; a socket that answered is skipped once.
      setInterval(() => {
        for (const ws of held) {
          if (ws.heard) ws.heard = false;
          else ws.ping();
        }
      }, message.heartbeatMs);
      process.send?.({ heartbeat: true });
      return;
    }
    globalThis.gc?.();
    globalThis.gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    process.send?.({ heap: heapUsed, rss, held: held.size });
  });
}

async function forkServer(tcp) {
  const args = tcp ? ["--server", "--tcp"] : ["--server"];
  const child = fork(fileURLToPath(import.meta.url), args, { execArgv: ["--expose-gc"] });
  const next = () => new Promise((resolve) => child.once("message", resolve));
  const { port } = await next();
  return { child, port, next };
}

function echoOnce(port, tcp) {
  return new Promise((resolve, reject) => {
    if (tcp) {
      const socket = net.connect(port, "127.0.0.1", () => socket.write("hello\n"));
      socket.once("data", () => resolve(socket));
      socket.on("error", reject);
      return;
    }
    const ws = new WebSocket(`ws://127.0.0.1:${port}`, { perMessageDeflate: false });
    ws.on("open", () => ws.send("hello"));
    ws.once("message", () => resolve(ws));
    ws.on("error", reject);
  });
}

// Heap and RSS per held connection, as memory.js reads them; then, with idleSeconds, the server's CPU
// while it pings them as a Foyer node does (a `ws` server only).
export async function runMemoryFloor(connections, { tcp = false, idleSeconds = 0, settleSeconds = 0 } = {}) {
  const { child, port, next } = await forkServer(tcp);
  const open = async (count, batch = 100) => {
    for (let i = 0; i < count; i += batch)
      await Promise.all(Array.from({ length: Math.min(batch, count - i) }, () => echoOnce(port, tcp)));
  };
  const read = () => {
    const answer = next();
    child.send("read");
    return answer;
  };
  const heartbeatMs = 15_000;
  let pingsFrom = null;
  const startPings = async () => {
    const started = next();
    child.send({ heartbeatMs });
    await started;
    pingsFrom = performance.now();
  };
  await open(400); // warm up, as the other memory benches do
  // Seated a while, a Foyer node's sockets have been pinged and have answered all along: so are these.
  if (settleSeconds > 0 && !tcp) await startPings();
  await settleWait(settleSeconds, 1000);
  const before = await read();
  await open(connections);
  await settleWait(settleSeconds, 2000);
  const after = await read();
  let idle = null;
  if (idleSeconds > 0 && !tcp) {
    if (pingsFrom === null) await startPings();
    // Every socket was heard as it opened, so the first round after that only forgets it, the next pings
    // it and the one after forgets its pong: from then on it is pinged once every 30 s. The window opens
    // at least 22.5 s after the rounds start, so each socket is past its first forgetting and a 30 s
    // window holds one ping of each, as any 30 s of a Foyer node's idle does once its fill is forgotten.
    const wait = 1.5 * heartbeatMs - (performance.now() - pingsFrom);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    idle = await idleCpu(child.pid, idleSeconds);
  }
  child.kill("SIGKILL");
  return {
    server: tcp ? "node:net" : "ws",
    connections,
    settleSeconds,
    heapPerConnection: Math.round((after.heap - before.heap) / connections),
    rssPerConnection: Math.round((after.rss - before.rss) / connections),
    idle,
  };
}

// New connections answered per second, and their latency, at each concurrency.
export async function runColdFloor(concurrencies, seconds, warmUpSeconds = 0) {
  const { child, port } = await forkServer(false);
  const results = [];
  for (const concurrency of concurrencies) {
    const latencies = [];
    const loop = async (deadline, into) => {
      do {
        const t0 = performance.now();
        const ws = await echoOnce(port, false);
        into?.push(performance.now() - t0);
        // The servers' loops leave (a request and its answer) before they close: so does the floor's.
        await new Promise((resolve, reject) => {
          ws.once("message", resolve);
          ws.send("leave", (error) => error && reject(error));
        });
        ws.close();
      } while (performance.now() < deadline);
    };
    // Untimed connections first, as the servers' cold benches warm up (cold-join.js).
    const warmUntil = performance.now() + warmUpSeconds * 1000;
    await Promise.all(Array.from({ length: concurrency }, () => loop(warmUntil)));
    const started = performance.now();
    const cpu0 = cpuSeconds(child.pid);
    await Promise.all(Array.from({ length: concurrency }, () => loop(started + seconds * 1000, latencies)));
    const elapsedS = (performance.now() - started) / 1000;
    const cpuMs = (cpuSeconds(child.pid) - cpu0) * 1000;
    results.push({
      concurrency,
      connectionsPerSecond: Math.round(latencies.length / elapsedS),
      connect: summarize(latencies),
      serverCpuMsPerConnection: Number((cpuMs / Math.max(1, latencies.length)).toFixed(3)),
    });
  }
  child.kill("SIGKILL");
  return results;
}

if (process.argv.includes("--server")) serve(process.argv.includes("--tcp"));
else if (import.meta.url === `file://${process.argv[1]}`) {
  if (flag("cold", false)) {
    const concurrencies = String(flag("concurrency", "1,200")).split(",").map(Number);
    const warmUp = Number(flag("warm-up-seconds", 0));
    console.log(JSON.stringify(await runColdFloor(concurrencies, Number(flag("seconds", 5)), warmUp)));
  } else {
    const tcp = Boolean(flag("tcp", false));
    const idleSeconds = Number(flag("idle-seconds", 0));
    const settleSeconds = Number(flag("settle-seconds", 0));
    const connections = Number(flag("connections", 8000));
    console.log(JSON.stringify(await runMemoryFloor(connections, { tcp, idleSeconds, settleSeconds })));
  }
  process.exit(0);
}
