import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { isFoyerError, type FoyerClient, type LobbyView } from "../../gateway/client/index.ts";
import { CloseCodes } from "../../gateway/protocol/close-codes.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import {
  clientFor,
  eventually,
  lobbyOf,
  rawJoin,
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

const comparable = (lobby: LobbyView) => ({ ...lobby, seq: 0 });

/**
 * A node with a lobby of three: host "h" and guest "g" on the SDK, and the attacker "x" — a raw socket
 * that joined, so whatever it sends comes from a member who could change the lobby.
 */
async function withLobby(overrides: Record<string, string> = {}) {
  node = await startTestNode(overrides);
  const host = await clientFor(node, "h");
  const guest = await clientFor(node, "g");
  clients.push(host, guest);
  const { code } = await host.create();
  await guest.join(code);
  const x = await rawSocket(node, { player: "x" });
  await rawJoin(x, code);
  await eventually(() => expect(lobbyOf(host).members.map((m) => m.player)).toEqual(["h", "g", "x"]));
  const before = comparable(lobbyOf(host));
  /**
   * The lobby is as it was, but for the attacker's `connected` flag when its socket was closed: as the
   * host's client sees it, and in a fresh copy of the state after a round trip through the lobby (a
   * member joining its own lobby is sent the state), which the lobby sends only after everything before.
   */
  const unchanged = async (attacker: { connected: boolean }): Promise<void> => {
    const expected = {
      ...before,
      // A member dropping is a change of the lobby: it moves the version by one.
      version: before.version + (attacker.connected ? 0 : 1),
      members: before.members.map((m) => (m.player === "x" ? { ...m, connected: attacker.connected } : m)),
    };
    await eventually(() => expect(comparable(lobbyOf(host))).toEqual(expected));
    const seq = lobbyOf(host).seq;
    await host.join(code.toLowerCase());
    await eventually(() => expect(lobbyOf(host).seq).toBeGreaterThan(seq));
    expect(comparable(lobbyOf(host))).toEqual(expected);
  };
  return { node, host, guest, x, code, unchanged };
}

const errorsOf = (frames: unknown[]): Frame[] => (frames as Frame[]).filter((f) => f.type === "error");

describe("bad input from a member changes nothing and gets its error or close code", () => {
  it("malformed msgpack gets INVALID and the connection stays open", async () => {
    const { x, unchanged } = await withLobby();
    x.ws.send(Buffer.from([0xc1, 0xff, 0x00]));
    await eventually(() => expect(errorsOf(x.frames)[0]).toMatchObject({ code: "INVALID" }));
    x.ws.send(encodeFrame({ type: "ping", t: 1 }, "msgpack"));
    await eventually(() => expect(x.frames.some((f) => (f as Frame).type === "pong")).toBe(true));
    await unchanged({ connected: true });
  });

  it("wrong field types and unknown frame types get INVALID answering their request id", async () => {
    const { x, code, unchanged } = await withLobby();
    x.ws.send(encodeFrame({ type: "ready", id: 6, ready: "yes" }, "msgpack"));
    x.ws.send(encodeFrame({ type: "join", id: 7, code: 12345 }, "msgpack"));
    x.ws.send(encodeFrame({ type: "teleport", id: 8 }, "msgpack"));
    x.ws.send(encodeFrame({ type: "makeHost", id: 9, player: "x", extra: true }, "msgpack"));
    x.ws.send(encodeFrame({ type: "join", id: 10, code, extra: true }, "msgpack"));
    await eventually(() => expect(errorsOf(x.frames)).toHaveLength(5));
    expect(errorsOf(x.frames).map((f) => [f.id, f.code])).toEqual([
      [6, "INVALID"],
      [7, "INVALID"],
      [8, "INVALID"],
      [9, "INVALID"],
      [10, "INVALID"],
    ]);
    await unchanged({ connected: true });
  });

  it("a frame over the size limit closes the socket with TOO_LARGE", async () => {
    const { x, unchanged } = await withLobby({ maxFrameBytes: "1024" });
    x.ws.send(encodeFrame({ type: "profile", id: 2, name: "x".repeat(2000) }, "msgpack"));
    expect((await x.closed).code).toBe(CloseCodes.TOO_LARGE.code);
    await unchanged({ connected: false });
  });

  it("a flood gets RATE_LIMITED, then the socket is closed", async () => {
    const { x, unchanged } = await withLobby({ ratePerSecond: "5", rateBurst: "5" });
    // Requests the lobby would take (x is not ready: the admitted ones change nothing), far past the limit.
    for (let i = 0; i < 40; i++)
      x.ws.send(encodeFrame({ type: "ready", id: 100 + i, ready: false }, "msgpack"));
    expect((await x.closed).code).toBe(CloseCodes.RATE_LIMITED.code);
    const limited = errorsOf(x.frames).filter((f) => f.code === "RATE_LIMITED");
    expect(limited.length).toBeGreaterThan(0);
    expect(limited.every((f) => typeof (f as { retryAfterMs?: number }).retryAfterMs === "number")).toBe(
      true,
    );
    await unchanged({ connected: false });
  });

  it("an expired, forged or unknown-key token for a member is refused and does not touch its seat", async () => {
    const { node, x, unchanged } = await withLobby();
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
    // The refused hellos did not take over x's session: its socket is open and served.
    expect(x.ws.readyState).toBe(WebSocket.OPEN);
    await unchanged({ connected: true });
  });

  it("a forged player id is refused: identity comes only from the token", async () => {
    const { node, code, x, unchanged } = await withLobby();
    const hello = await rawSocket(node, { hello: false });
    hello.ws.send(encodeFrame({ type: "hello", protocol: 1, token: tokenFor("x"), player: "h" }, "msgpack"));
    expect((await hello.closed).code).toBe(CloseCodes.PROTOCOL.code);
    x.ws.send(encodeFrame({ type: "leave", id: 2, player: "h" }, "msgpack"));
    x.ws.send(encodeFrame({ type: "join", id: 3, code, player: "g" }, "msgpack"));
    x.ws.send(encodeFrame({ type: "makeHost", id: 4, player: "x", as: "h" }, "msgpack"));
    await eventually(() =>
      expect(errorsOf(x.frames).map((f) => f.code)).toEqual(["INVALID", "INVALID", "INVALID"]),
    );
    await unchanged({ connected: true });
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
    await unchanged({ connected: true });
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
    await unchanged({ connected: true });
  });

  it("pings before hello are a region probe: 16 are answered, the 17th closes with PROTOCOL", async () => {
    node = await startTestNode();
    const raw = await rawSocket(node, { hello: false });
    for (let t = 1; t <= 17; t++) raw.ws.send(encodeFrame({ type: "ping", t }, "msgpack"));
    expect((await raw.closed).code).toBe(CloseCodes.PROTOCOL.code);
    const pongs = (raw.frames as { type: string; t: number }[]).filter((f) => f.type === "pong");
    expect(pongs.map((f) => f.t)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    // Nothing else was answered, and no session was made.
    expect(raw.frames).toHaveLength(16);
    expect(node.sessions.size).toBe(0);
  });

  it("a hello with an unsupported protocol version is closed with PROTOCOL", async () => {
    node = await startTestNode();
    const raw = await rawSocket(node, { hello: false });
    raw.ws.send(encodeFrame({ type: "hello", protocol: 99, token: tokenFor("x") }, "msgpack"));
    expect((await raw.closed).code).toBe(CloseCodes.PROTOCOL.code);
  });

  it("a getRoomBlob reusing the id of a room request it already answered gets INVALID, not INTERNAL", async () => {
    // Found by `foyer fuzz`: the room answers a known (session, id) with the stored result of the earlier
    // request (docs/protocol.md "Exactly once"), which is not a document; the gateway read it as one.
    node = await startTestNode();
    const x = await rawSocket(node, { player: "x" });
    x.ws.send(encodeFrame({ type: "createRoom", id: 5, seats: 2, mode: "duel" }, "msgpack"));
    await waitFrame(x.frames, (f) => f.id === 5 && f.type === "result");
    x.ws.send(encodeFrame({ type: "roomReady", id: 6, ready: true }, "msgpack"));
    await waitFrame(x.frames, (f) => f.id === 6 && f.type === "result");
    x.ws.send(encodeFrame({ type: "getRoomBlob", id: 6 }, "msgpack"));
    x.ws.send(encodeFrame({ type: "getRoomBlob", id: 5 }, "msgpack"));
    await eventually(() => expect(errorsOf(x.frames)).toHaveLength(2));
    expect(errorsOf(x.frames).map((f) => [f.id, f.code])).toEqual([
      [6, "INVALID"],
      [5, "INVALID"],
    ]);
  });
});
