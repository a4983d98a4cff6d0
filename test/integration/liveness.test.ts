import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { FoyerClient } from "../../gateway/client/index.ts";
import { CloseCodes } from "../../gateway/protocol/close-codes.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, eventually, lobbyOf, rawJoin, rawSocket, startTestNode } from "../support/node.ts";

let node: RunningNode | undefined;
const clients: FoyerClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await node?.stop();
  node = undefined;
});

/** Sends raw bytes to the node's HTTP port and resolves with the status line of the answer. */
function rawHttp(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(request));
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
    socket.on("end", () => resolve(answer.split("\r\n")[0] ?? ""));
    socket.on("close", () => resolve(answer.split("\r\n")[0] ?? ""));
    socket.on("error", reject);
  });
}

describe("liveness", () => {
  it("drops a socket that stops answering pings, and its member shows as away", async () => {
    node = await startTestNode({ heartbeatMs: "100", lobbyGraceSeconds: "60" });
    const host = await clientFor(node, "h");
    clients.push(host);
    const disconnects: number[] = [];
    host.on("disconnected", (d) => disconnects.push(d.code));
    const { code } = await host.create();
    // Its TCP connection stays up, but it never answers a ping: a peer that vanished without a FIN.
    const silent = await rawSocket(node, { player: "s", autoPong: false });
    await rawJoin(silent, code);
    await eventually(() => expect(lobbyOf(host).members[1]).toMatchObject({ player: "s", connected: true }));
    expect((await silent.closed).code).toBe(1006);
    await eventually(() => expect(lobbyOf(host).members[1]).toMatchObject({ player: "s", connected: false }));
    expect(node.refusals.get("close:HEARTBEAT")).toBe(1);
    // The SDK's socket answered every ping meanwhile (two at least): it is still the same connection.
    expect(disconnects).toEqual([]);
    expect(lobbyOf(host).members[0]).toMatchObject({ player: "h", connected: true });
    await host.ready(true);
  });

  it("closes sockets with SHUTDOWN when it stops, and clients see that code", async () => {
    node = await startTestNode();
    const raw = await rawSocket(node, { player: "a" });
    // A frame sent in the same turn corks the socket: the close frame queues behind it and is flushed
    // only after the turn, so a node that destroyed its sockets at once would lose it (the client: 1006).
    node.sessions.ofPlayer("a")?.send({ type: "pong", t: 0, now: 0 });
    await node.stop();
    node = undefined;
    expect((await raw.closed).code).toBe(CloseCodes.SHUTDOWN.code);
  });

  it("answers a request target that is not a URL with 400 and keeps serving", async () => {
    node = await startTestNode();
    const status = await rawHttp(node.port, "GET http://[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expect(status).toBe("HTTP/1.1 400 Bad Request");
    const health = await fetch(`${node.httpUrl}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });
  });
});
