import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Connection } from "../../gateway/connection.ts";
import { GatewaySocket } from "../../gateway/gateway-socket.ts";
import { connectionDeps } from "./support/connection-deps.ts";
import { gatewaySocketPairs } from "./support/gateway-socket-pair.ts";

const deps = connectionDeps();

const socketPair = gatewaySocketPairs();

/** A real `ws` server socket wrapped in a Connection, and the client socket at its other end. */
async function pair(): Promise<{ ws: GatewaySocket; connection: Connection; client: WebSocket }> {
  const { ws, client } = await socketPair();
  return { ws, connection: new Connection(ws, deps), client };
}

/** The node's end of the socket's TCP stream, whose `end` calls are counted. */
function endsOf(ws: WebSocket): { count: number; onFirst?: () => void } {
  const socket = (ws as unknown as { _socket: { end: (...args: unknown[]) => unknown } })._socket;
  const ends: { count: number; onFirst?: () => void } = { count: 0 };
  const end = socket.end.bind(socket);
  socket.end = (...args: unknown[]) => {
    ends.count++;
    const result = end(...args);
    if (ends.count === 1) ends.onFirst?.();
    return result;
  };
  return ends;
}

describe("closing a connection", () => {
  it("leaves a socket its peer is already closing to `ws`: no second end of its stream, the peer's close code stands", async () => {
    const { ws, connection, client } = await pair();
    const ends = endsOf(ws);
    // The moment `ws` has answered the client's close frame and ended the stream, the node closes the
    // connection too (a newer socket of the same player replacing it).
    let endsByClose = -1;
    ends.onFirst = () => {
      expect(ws.readyState).toBe(WebSocket.CLOSING);
      const before = ends.count;
      connection.close(4001, "REPLACED");
      endsByClose = ends.count - before;
    };
    const clientClosed = new Promise<number>((resolve) => client.once("close", resolve));
    const serverClosed = new Promise((resolve) => ws.once("close", resolve));
    client.close(1000, "bye");
    expect(await clientClosed).toBe(1000);
    await serverClosed;
    expect(endsByClose).toBe(0);
  });

  it("still closes an open socket with its code, and only once", async () => {
    const { ws, connection, client } = await pair();
    const clientClosed = new Promise<[number, string]>((resolve) =>
      client.once("close", (code, reason) => resolve([code, reason.toString()])),
    );
    connection.close(4001, "REPLACED");
    connection.close(4002, "AGAIN");
    expect(await clientClosed).toEqual([4001, "REPLACED"]);
    await new Promise((resolve) =>
      ws.readyState === WebSocket.CLOSED ? resolve(undefined) : ws.once("close", resolve),
    );
    expect(ws.readyState).toBe(WebSocket.CLOSED);
  });
});
