import { EventEmitter } from "node:events";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type GatewaySocket, type SocketEvents, deliverSocketEvent } from "../../gateway/gateway-socket.ts";
import { Connection } from "../../gateway/connection.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import { connectionDeps } from "./support/connection-deps.ts";

beforeEach(() => {
  // The connection's hello timeout must not fire while a test calls its heartbeats by hand.
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** The part of a `ws` server socket a Connection uses, recording the pings it sends and whether it was cut. */
class FakeServerSocket extends EventEmitter {
  /** Its connection, told of each event as a gateway socket tells it. */
  events: SocketEvents | undefined;
  override emit(event: string, ...args: unknown[]): boolean {
    return this.events !== undefined && deliverSocketEvent(this.events, event, args);
  }
  pings = 0;
  terminated = false;
  readonly sent: unknown[] = [];
  readonly bufferedAmount = 0;
  ping(): void {
    this.pings++;
  }
  terminate(): void {
    this.terminated = true;
  }
  closedWith: number | undefined;
  close(code: number): void {
    this.closedWith = code;
  }
  send(data: unknown): void {
    this.sent.push(data);
  }
  /** The peer sends a frame (binary msgpack). */
  frame(frame: object): void {
    this.emit("message", Buffer.from(encodeFrame(frame, "msgpack") as Uint8Array), true);
  }
}

function connection(): { socket: FakeServerSocket; connection: Connection; refused: string[] } {
  const socket = new FakeServerSocket();
  const refused: string[] = [];
  const deps = connectionDeps({ onRefused: (code: string) => refused.push(code) });
  return { socket, connection: new Connection(socket as unknown as GatewaySocket, deps), refused };
}

describe("the node's heartbeat on one socket", () => {
  it("pings a silent socket and drops it when the next heartbeat finds that ping unanswered", () => {
    const { socket, connection: c, refused } = connection();
    c.heartbeat();
    expect(socket.pings).toBe(1);
    expect(socket.terminated).toBe(false);
    c.heartbeat();
    expect(socket.terminated).toBe(true);
    expect(refused).toEqual(["close:HEARTBEAT"]);
  });

  it("does not ping a socket it heard from since the last heartbeat: a frame, a client's ping, the pong to its own", () => {
    const { socket, connection: c } = connection();
    // A frame (a region probe's ping frame, answered before any hello).
    socket.frame({ type: "ping", t: 1 });
    c.heartbeat();
    expect(socket.pings).toBe(0);
    // A WebSocket ping from the client (`ws` answered it by itself).
    socket.emit("ping", Buffer.alloc(0));
    c.heartbeat();
    expect(socket.pings).toBe(0);
    // Nothing since: pinged.
    c.heartbeat();
    expect(socket.pings).toBe(1);
    // It answered: alive, and not pinged again at the next heartbeat, only at the one after.
    socket.emit("pong", Buffer.alloc(0));
    c.heartbeat();
    expect(socket.pings).toBe(1);
    c.heartbeat();
    expect(socket.pings).toBe(2);
    expect(socket.terminated).toBe(false);
  });

  it("counts any sign of life as the answer to an outstanding ping", () => {
    const { socket, connection: c } = connection();
    c.heartbeat();
    expect(socket.pings).toBe(1);
    // No pong (yet), but the client pinged the node itself: it is there.
    socket.emit("ping", Buffer.alloc(0));
    c.heartbeat();
    expect(socket.terminated).toBe(false);
    // Silent from then on: pinged at the next heartbeat, dropped at the one after.
    c.heartbeat();
    expect(socket.pings).toBe(2);
    c.heartbeat();
    expect(socket.terminated).toBe(true);
  });

  it("does not take an unsolicited pong for a sign of life", () => {
    const { socket, connection: c } = connection();
    // RFC 6455 allows unsolicited pongs; a peer that sends only those must still be pinged, so the node
    // keeps sending it something (a proxy would close a socket that is silent one way).
    socket.emit("pong", Buffer.alloc(0));
    c.heartbeat();
    expect(socket.pings).toBe(1);
    socket.emit("pong", Buffer.alloc(0));
    socket.emit("pong", Buffer.alloc(0));
    c.heartbeat();
    expect(socket.pings).toBe(1);
    expect(socket.terminated).toBe(false);
    c.heartbeat();
    expect(socket.pings).toBe(2);
  });

  it("counts a client's WebSocket pings against its rate limit: a flood of them is closed like a flood of frames", () => {
    const { socket, refused } = connection();
    // Within the burst (100): answered by `ws`, nothing more.
    for (let i = 0; i < 100; i++) socket.emit("ping", Buffer.alloc(0));
    expect(socket.closedWith).toBeUndefined();
    // Another burst's worth past it: a flood.
    for (let i = 0; i < 100; i++) socket.emit("ping", Buffer.alloc(0));
    expect(socket.closedWith).toBe(4029);
    expect(refused).toEqual(["close:RATE_LIMITED"]);
  });
});
