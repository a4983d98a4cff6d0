import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { isFoyerError, type FoyerClient } from "../../gateway/client/index.ts";
import { CloseCodes } from "../../gateway/protocol/close-codes.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import {
  clientFor,
  eventually,
  lobbyOf,
  rawSocket,
  startTestNode,
  tokenFor,
  waitFrame,
} from "../support/node.ts";

let node: RunningNode | undefined;
const clients: FoyerClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await node?.stop();
  node = undefined;
});

interface Frame {
  type: string;
  id?: number;
  code?: string;
}

/** A node with a lobby of two (host "h", guest "g"); returns the lobby as the host sees it. */
async function withLobby(overrides: Record<string, string> = {}) {
  node = await startTestNode(overrides);
  const host = await clientFor(node, "h");
  const guest = await clientFor(node, "g");
  clients.push(host, guest);
  const { code } = await host.create();
  await guest.join(code);
  await eventually(() => expect(lobbyOf(host).members).toHaveLength(2));
  const before = JSON.stringify({ ...lobbyOf(host), seq: 0 });
  const unchanged = async (): Promise<void> => {
    // A round trip through the lobby proves earlier frames were handled; the state must be as it was.
    await host.profile("h");
    expect(JSON.stringify({ ...lobbyOf(host), seq: 0 })).toBe(before);
  };
  return { node, host, guest, code, unchanged };
}

const errorsOf = (frames: unknown[]): Frame[] => (frames as Frame[]).filter((f) => f.type === "error");

describe("bad input changes nothing and gets its error or close code", () => {
  it("malformed msgpack gets INVALID and the connection stays open", async () => {
    const { node, unchanged } = await withLobby();
    const raw = await rawSocket(node, { player: "x" });
    raw.ws.send(Buffer.from([0xc1, 0xff, 0x00]));
    await eventually(() => expect(errorsOf(raw.frames)[0]).toMatchObject({ code: "INVALID" }));
    raw.ws.send(encodeFrame({ type: "ping", t: 1 }, "msgpack"));
    await eventually(() => expect(raw.frames.some((f) => (f as Frame).type === "pong")).toBe(true));
    await unchanged();
    raw.ws.close();
  });

  it("wrong field types and unknown frame types get INVALID answering their request id", async () => {
    const { node, code, unchanged } = await withLobby();
    const raw = await rawSocket(node, { player: "x", json: true });
    raw.ws.send(JSON.stringify({ type: "join", id: 7, code: 12345 }));
    raw.ws.send(JSON.stringify({ type: "teleport", id: 8 }));
    raw.ws.send(JSON.stringify({ type: "join", id: 9, code, extra: true }));
    await eventually(() => expect(errorsOf(raw.frames)).toHaveLength(3));
    expect(errorsOf(raw.frames).map((f) => [f.id, f.code])).toEqual([
      [7, "INVALID"],
      [8, "INVALID"],
      [9, "INVALID"],
    ]);
    await unchanged();
    raw.ws.close();
  });

  it("a frame over the size limit closes the socket with TOO_LARGE", async () => {
    const { node, unchanged } = await withLobby({ maxFrameBytes: "1024" });
    const raw = await rawSocket(node, { player: "x" });
    raw.ws.send(encodeFrame({ type: "profile", id: 1, name: "x".repeat(2000) }, "msgpack"));
    expect((await raw.closed).code).toBe(CloseCodes.TOO_LARGE.code);
    await unchanged();
  });

  it("a flood gets RATE_LIMITED, then the socket is closed", async () => {
    const { node, unchanged } = await withLobby({ ratePerSecond: "5", rateBurst: "5" });
    const raw = await rawSocket(node, { player: "x" });
    for (let i = 0; i < 40; i++) raw.ws.send(encodeFrame({ type: "ping", t: i }, "msgpack"));
    expect((await raw.closed).code).toBe(CloseCodes.RATE_LIMITED.code);
    expect(errorsOf(raw.frames).some((f) => f.code === "RATE_LIMITED")).toBe(true);
    await unchanged();
  });

  it("a reader that stops reading is closed once its unsent bytes pass the bound", async () => {
    node = await startTestNode({ maxBufferedBytes: "65536", ratePerSecond: "1000000", rateBurst: "1000000" });
    const host = await rawSocket(node, { player: "h" });
    // Large lobby frames (64-character metadata) fill the slow reader's buffers quickly.
    const metadata = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`field${i}`, "m".repeat(64)]));
    host.ws.send(encodeFrame({ type: "create", id: 1, public: true, metadata }, "msgpack"));
    const created = await waitFrame<{ value: { code: string } }>(host.frames, (f) => f.type === "result");
    const code = created.value.code;
    const slow = await rawSocket(node, { player: "slow" });
    slow.ws.send(encodeFrame({ type: "join", id: 1, code }, "msgpack"));
    await waitFrame(slow.frames, (f) => f.type === "result");
    // Stop reading: the node's pushes pile up in the kernel buffers, then in the socket's send queue.
    const socket = (slow.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    socket.pause();
    const refusals = node.refusals;
    let id = 2;
    for (let round = 0; round < 400 && !refusals.has("close:SLOW_CONSUMER"); round++) {
      for (let i = 0; i < 100; i++, id++)
        host.ws.send(encodeFrame({ type: "ready", id, ready: id % 2 === 0 }, "msgpack"));
      await new Promise((r) => setTimeout(r, 10));
    }
    // (The host's socket, busy sending, may cross the bound too; the slow reader must.)
    await eventually(() => expect(refusals.get("close:SLOW_CONSUMER")).toBeGreaterThanOrEqual(1), 10_000);
    // The node has given up on it; once the client reads again it finds the close frame behind its backlog.
    socket.resume();
    expect((await slow.closed).code).toBe(CloseCodes.SLOW_CONSUMER.code);
    host.ws.close();
  });

  it("an expired, forged or unknown-key token is refused with UNAUTHORIZED and closed", async () => {
    const { node, unchanged } = await withLobby();
    const tokens = [
      tokenFor("x", "x", -10),
      tokenFor("x", "x", 3600, { id: "k1", secret: "not-the-secret-at-all-0000" }),
      tokenFor("x", "x", 3600, { id: "k9", secret: "test-secret-0123456789abcdef" }),
      "not.a.token",
    ];
    for (const token of tokens) {
      const raw = await rawSocket(node, { token });
      expect(errorsOf(raw.frames)[0]).toMatchObject({ code: "UNAUTHORIZED" });
      expect((await raw.closed).code).toBe(CloseCodes.UNAUTHORIZED.code);
    }
    await unchanged();
  });

  it("a forged player id is refused: identity comes only from the token", async () => {
    const { node, code, unchanged } = await withLobby();
    const hello = await rawSocket(node, { hello: false });
    hello.ws.send(encodeFrame({ type: "hello", protocol: 1, token: tokenFor("x"), player: "h" }, "msgpack"));
    expect((await hello.closed).code).toBe(CloseCodes.PROTOCOL.code);
    const raw = await rawSocket(node, { player: "x" });
    raw.ws.send(encodeFrame({ type: "leave", id: 1, player: "h" }, "msgpack"));
    raw.ws.send(encodeFrame({ type: "join", id: 2, code, player: "g" }, "msgpack"));
    await eventually(() => expect(errorsOf(raw.frames).map((f) => f.code)).toEqual(["INVALID", "INVALID"]));
    await unchanged();
    raw.ws.close();
  });

  it("a wrong Origin is refused at the upgrade", async () => {
    const { node, unchanged } = await withLobby({ allowedOrigins: "https://game.example" });
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(node.url, { headers: { origin: "https://evil.example" } });
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => resolve(101));
      ws.on("error", () => undefined);
    });
    expect(status).toBe(403);
    const ok = await rawSocket(node, { player: "y", headers: { origin: "https://game.example" } });
    expect(ok.frames[0]).toMatchObject({ type: "welcome" });
    ok.ws.close();
    await unchanged();
  });

  it("connections past the per-IP limit are refused", async () => {
    node = await startTestNode({ maxConnectionsPerIp: "2" });
    const a = await rawSocket(node, { player: "a" });
    const b = await rawSocket(node, { player: "b" });
    const status = await new Promise<number>((resolve) => {
      const ws = new WebSocket(node!.url);
      ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      ws.on("open", () => resolve(101));
      ws.on("error", () => undefined);
    });
    expect(status).toBe(429);
    a.ws.close();
    b.ws.close();
  });

  it("a guest calling start gets NOT_HOST and the lobby is unchanged", async () => {
    const { guest, unchanged } = await withLobby();
    let code: string | undefined;
    try {
      await guest.start("duo");
    } catch (error) {
      if (isFoyerError(error)) code = error.code;
    }
    expect(code).toBe("NOT_HOST");
    await unchanged();
  });

  it("a hello with an unsupported protocol version is closed with PROTOCOL", async () => {
    node = await startTestNode();
    const raw = await rawSocket(node, { hello: false });
    raw.ws.send(encodeFrame({ type: "hello", protocol: 99, token: tokenFor("x") }, "msgpack"));
    expect((await raw.closed).code).toBe(CloseCodes.PROTOCOL.code);
  });
});
