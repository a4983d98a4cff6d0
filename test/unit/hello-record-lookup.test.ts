import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type { ActorSystem, AskResult } from "../../actors/runtime/index.ts";
import { signPlayerToken } from "../../gateway/auth/index.ts";
import { type GatewaySocket, type SocketEvents, deliverSocketEvent } from "../../gateway/gateway-socket.ts";
import { Connection, type ConnectionDeps } from "../../gateway/connection.ts";
import { decodeServerFrame, encodeFrame } from "../../gateway/protocol/codec.ts";
import { PROTOCOL_VERSION } from "../../gateway/protocol/server-frames.ts";
import { SessionRegistry } from "../../gateway/sessions/index.ts";
import { connectionDeps } from "./support/connection-deps.ts";

/**
 * After a hello the gateway finds the player's lobby and its running queue match, both from the player's
 * record: one ask of the registry answers both (a cold join pays for every ask it makes).
 */

const key = { id: "k1", secret: "a-secret-of-enough-length-0123456789" };

/** The part of a `ws` server socket a Connection uses, keeping the frames sent to the client. */
class FakeServerSocket extends EventEmitter {
  /** Its connection, told of each event as a gateway socket tells it. */
  events: SocketEvents | undefined;
  override emit(event: string, ...args: unknown[]): boolean {
    return this.events !== undefined && deliverSocketEvent(this.events, event, args);
  }
  readonly frames: { type: string }[] = [];
  readonly bufferedAmount = 0;
  send(data: Uint8Array): void {
    const decoded = decodeServerFrame(data);
    if (decoded.ok) this.frames.push(decoded.frame);
  }
  closed = false;
  close(): void {
    this.closed = true;
  }
  terminate(): void {
    this.closed = true;
  }
}

/** A node whose player registry answers `record` for every player, counting what it is asked. */
function node(record: AskResult) {
  const asked: { key: string; type: string }[] = [];
  const system = {
    ask: (to: string, message: { type: string }) => {
      asked.push({ key: to, type: message.type });
      if (to.startsWith("player/")) return Promise.resolve(record);
      return Promise.resolve({ ok: false, code: "NOT_FOUND", message: "no such key" });
    },
    tell: () => undefined,
    spawn: () => Promise.resolve({ created: false }),
  } as unknown as ActorSystem;
  const deps = connectionDeps({
    system,
    requests: {
      ownerOf: () => Promise.resolve({ kind: "here" }),
      waitForOwner: () => Promise.resolve(),
    },
    sessions: new SessionRegistry(),
    tokenKeys: [key],
    sessionSecret: "session-secret",
  });
  return { asked, deps };
}

async function hello(deps: ConnectionDeps): Promise<FakeServerSocket> {
  const socket = new FakeServerSocket();
  new Connection(socket as unknown as GatewaySocket, deps);
  const token = signPlayerToken({ sub: "p1", name: "P", exp: Math.floor(Date.now() / 1000) + 3600 }, key);
  const frame = encodeFrame({ type: "hello", protocol: PROTOCOL_VERSION, token }, "msgpack");
  socket.emit("message", Buffer.from(frame as Uint8Array), true);
  const deadline = Date.now() + 5_000;
  while (!socket.frames.some((f) => f.type === "noLobby") && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 5));
  return socket;
}

describe("the lookups after a hello", () => {
  it("ask the player's record once for the lobby and the match, and both read its answer", async () => {
    const { asked, deps } = node({ ok: true, value: { lobby: null, match: null } });
    const socket = await hello(deps);
    expect(socket.frames.map((f) => f.type)).toEqual(["welcome", "noLobby"]);
    expect(socket.closed).toBe(false);
    expect(asked.filter((a) => a.key === "player/p1")).toEqual([{ key: "player/p1", type: "get" }]);
  });

  it("still find a running match from that one answer", async () => {
    const { asked, deps } = node({
      ok: true,
      value: { lobby: null, match: { queue: "queue/duel", room: "room/R1" } },
    });
    await hello(deps);
    // The match lookup went on to the queue the record names, without a record of its own.
    expect(asked.filter((a) => a.key === "player/p1")).toHaveLength(1);
    expect(asked).toContainEqual({ key: "queue/duel", type: "activeMatch" });
  });
});
