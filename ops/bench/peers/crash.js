// What clients of a killed Colyseus process see: the server runs in its own process with R rooms of 8
// connected clients; this process sends it SIGKILL and records, for every client, the time from the kill
// to the room's onLeave (with its close code) and to any onError. Then a new server starts on the same
// port and every room is asked for again — by code (joinById) and by the client's reconnection token —
// to count the rooms that survived.
import { Client } from "colyseus.js";
import { forkServer } from "./child.js";
import { flag, summarize } from "./latency.js";

export async function runCrash(rooms, members = 8) {
  const first = forkServer();
  const { url } = await first.ready;
  const port = Number(new URL(url).port);
  const seated = await seatRooms(url, rooms, members);
  const codes = [...new Set(seated.map((room) => room.roomId))];
  const seen = await killAndWatch(first, seated);
  // Restart on the same port, so the clients' URL still works; keep the new server's warnings out of
  // the output, and colyseus.js's own console hints about allowReconnection too.
  const second = forkServer(port, { quiet: true });
  await second.ready;
  const consoleError = console.error;
  console.error = () => undefined;
  const again = await askAgain(url, codes, seated);
  console.error = consoleError;
  second.child.kill("SIGKILL");
  const leave = summarize(seen.leaveMs);
  return {
    rooms,
    clients: seated.length,
    clientsToldLeft: seen.leaveMs.length,
    leaveAfterKill: {
      p50Ms: leave.p50Ms,
      p99Ms: leave.p99Ms,
      maxMs: Number(Math.max(...seen.leaveMs).toFixed(3)),
    },
    closeCodes: seen.closeCodes,
    onErrorCalls: seen.errorMs.length,
    sendAfterCloseThrew: seen.sendThrew,
    roomsSurvived: again.rejoin.ok,
    roomsLost: codes.length - again.rejoin.ok,
    rejoinByCode: again.rejoin.errors,
    rejoinP50Ms: summarize(again.rejoinMs).p50Ms,
    reconnectWithToken: again.reconnect,
  };
}

// R rooms of `members` clients each: a host creates, the others join by the room's id.
async function seatRooms(url, rooms, members) {
  const seated = [];
  for (let i = 0; i < rooms; i++) {
    const host = await new Client(url).create("lobby", { name: "Player 0" });
    seated.push(host);
    for (let m = 1; m < members; m++)
      seated.push(await new Client(url).joinById(host.roomId, { name: `Player ${m}` }));
  }
  return seated;
}

// Kills the server and records, for every client, the time to its onLeave (and close code) and onError;
// then tries a send on a closed room, and waits for the process to be gone.
async function killAndWatch(first, seated) {
  const leaveMs = [];
  const errorMs = [];
  const closeCodes = {};
  let killedAt = 0;
  const allLeft = new Promise((resolve) => {
    let left = 0;
    for (const room of seated) {
      room.onError((code) => errorMs.push({ ms: performance.now() - killedAt, code }));
      room.onLeave((code) => {
        leaveMs.push(performance.now() - killedAt);
        closeCodes[code] = (closeCodes[code] ?? 0) + 1;
        if (++left === seated.length) resolve();
      });
    }
  });
  killedAt = performance.now();
  first.child.kill("SIGKILL");
  const timeout = new Promise((resolve) => setTimeout(resolve, 30_000));
  await Promise.race([allLeft, timeout]);
  // A sent message after the kill: colyseus.js drops it silently once the socket is closed.
  let sendThrew = 0;
  for (const room of seated.slice(0, 10)) {
    try {
      room.send("ready", { ready: true, id: 0 });
    } catch {
      sendThrew++;
    }
  }
  await new Promise((resolve) =>
    first.child.exitCode !== null || first.child.signalCode !== null
      ? resolve()
      : first.child.once("exit", resolve),
  );
  return { leaveMs, errorMs, closeCodes, sendThrew };
}

// On the restarted server, every room asked for again by code, and up to 50 clients by their
// reconnection token: what survived the crash.
async function askAgain(restarted, codes, seated) {
  const rejoin = { ok: 0, errors: {} };
  const rejoinMs = [];
  for (const code of codes) {
    const t0 = performance.now();
    try {
      const room = await new Client(restarted).joinById(code, { name: "again" });
      rejoin.ok++;
      await room.leave();
    } catch (error) {
      const key = errorKey(error);
      rejoin.errors[key] = (rejoin.errors[key] ?? 0) + 1;
    }
    rejoinMs.push(performance.now() - t0);
  }
  const reconnect = { ok: 0, errors: {} };
  for (const room of seated.slice(0, Math.min(seated.length, 50))) {
    try {
      const again = await new Client(restarted).reconnect(room.reconnectionToken);
      reconnect.ok++;
      await again.leave();
    } catch (error) {
      const key = errorKey(error);
      reconnect.errors[key] = (reconnect.errors[key] ?? 0) + 1;
    }
  }
  return { rejoin, rejoinMs, reconnect };
}

// The error a client got, with the room's code taken out so that rooms count together.
function errorKey(error) {
  return `${error?.code ?? "?"} ${String(error?.message ?? error).replace(/"[^"]*"/, "<code>")}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(JSON.stringify(await runCrash(Number(flag("rooms", 100)))));
  process.exit(0);
}
