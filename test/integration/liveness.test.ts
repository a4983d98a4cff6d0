import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { FoyerClient, type SocketLike } from "../../gateway/client/index.ts";
import { createNodeClient } from "../../gateway/client/node.ts";
import { CloseCodes } from "../../gateway/protocol/close-codes.ts";
import { decodeClientFrame, encodeFrame } from "../../gateway/protocol/codec.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { BrowserLikeSocket } from "../support/browser-socket.ts";
import {
  clientFor,
  eventually,
  lobbyOf,
  rawJoin,
  rawSocket,
  startTestNode,
  tokenFor,
} from "../support/node.ts";

let node: RunningNode | undefined;
let silentNode: WebSocketServer | undefined;
const clients: FoyerClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await node?.stop();
  node = undefined;
  for (const ws of silentNode?.clients ?? []) ws.terminate();
  await new Promise((resolve) => silentNode?.close(resolve) ?? resolve(undefined));
  silentNode = undefined;
});

/**
 * A node that welcomes every hello and then says nothing: it answers no frame and no WebSocket ping, as
 * a frozen process (SIGSTOP) or a machine that lost power would, with the socket still open. It counts
 * the WebSocket pings and the `ping` frames it got.
 */
async function startSilentNode(): Promise<{ url: string; heard: { wsPings: number; pingFrames: number } }> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, autoPong: false });
  silentNode = server;
  const heard = { wsPings: 0, pingFrames: 0 };
  server.on("connection", (ws) => {
    ws.on("ping", () => heard.wsPings++);
    ws.on("message", (data: Buffer, isBinary: boolean) => {
      const decoded = decodeClientFrame(isBinary ? new Uint8Array(data) : data.toString("utf8"));
      if (!decoded.ok) return;
      if (decoded.frame.type === "ping") heard.pingFrames++;
      if (decoded.frame.type !== "hello") return;
      const welcome = {
        type: "welcome",
        protocol: 1,
        session: "s1",
        resume: "resume-token",
        player: { id: "p1", name: "p1" },
        node: "silent",
        resumed: false,
      };
      ws.send(encodeFrame(welcome, "msgpack"));
    });
  });
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `ws://127.0.0.1:${port}/ws`, heard };
}

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

  it("an SDK client in Node pings with WebSocket pings, which the node answers without a frame, and stays connected", async () => {
    // A heartbeat longer than the test: the client's pings are all the traffic there is.
    node = await startTestNode({ heartbeatMs: "600000" });
    const counts = { pings: 0, pongs: 0, frames: [] as string[] };
    class Counting extends WebSocket {
      constructor(url: string) {
        super(url);
        this.on("pong", () => counts.pongs++);
      }
      override ping(): void {
        counts.pings++;
        super.ping();
      }
      override send(data: Uint8Array | string): void {
        const decoded = decodeClientFrame(data);
        if (decoded.ok) counts.frames.push(decoded.frame.type);
        super.send(data);
      }
    }
    const client = new FoyerClient({
      urls: [node.url],
      token: tokenFor("w"),
      livenessMs: 3_000,
      WebSocket: Counting as unknown as new (url: string) => SocketLike,
    });
    clients.push(client);
    const disconnects: string[] = [];
    client.on("disconnected", (d) => disconnects.push(d.reason));
    await client.connect();
    // Each ping (past 1.5 s of silence) is answered by the node's `ws`, with no frame to decode.
    await eventually(() => expect(counts.pongs).toBeGreaterThanOrEqual(2), 20_000);
    expect(counts.pings).toBeGreaterThanOrEqual(2);
    expect(counts.frames).toEqual(["hello"]);
    expect(disconnects).toEqual([]);
  });
});

describe("the SDK against a node that stops answering (frozen, or its machine gone, the socket open)", () => {
  it("in Node: it pings at the WebSocket level, hears nothing, leaves the node and tries again", async () => {
    const silent = await startSilentNode();
    const client = createNodeClient({ urls: [silent.url], token: "tok", livenessMs: 800 });
    clients.push(client);
    const left = client.next("disconnected");
    await client.connect();
    expect(await left).toMatchObject({ reason: "the node stopped answering" });
    expect(silent.heard.wsPings).toBeGreaterThanOrEqual(1);
    expect(silent.heard.pingFrames).toBe(0);
  });

  it("in a browser (a socket without ping()): it pings with a `ping` frame instead, and leaves the node as well", async () => {
    const silent = await startSilentNode();
    const client = new FoyerClient({
      urls: [silent.url],
      token: "tok",
      livenessMs: 800,
      WebSocket: BrowserLikeSocket,
    });
    clients.push(client);
    const left = client.next("disconnected");
    await client.connect();
    expect(await left).toMatchObject({ reason: "the node stopped answering" });
    expect(silent.heard.pingFrames).toBeGreaterThanOrEqual(1);
    expect(silent.heard.wsPings).toBe(0);
  });
});
