import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import WebSocket, { type Server, WebSocketServer } from "ws";
import { GatewaySocket } from "../../../gateway/gateway-socket.ts";

/**
 * A real `ws` server that makes gateway sockets, one per test file: `socketPair()` accepts one connection
 * and gives the server's socket and the client's, both open; the server closes after each test.
 */
export function gatewaySocketPairs(): () => Promise<{ ws: GatewaySocket; client: WebSocket }> {
  let server: Server<typeof GatewaySocket> | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
    server = undefined;
  });
  return async () => {
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1", WebSocket: GatewaySocket });
    server = wss;
    await new Promise((resolve) => wss.once("listening", resolve));
    const accepted = new Promise<GatewaySocket>((resolve) => wss.once("connection", resolve));
    const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
    const ws = await accepted;
    await new Promise((resolve) => client.once("open", resolve));
    return { ws, client };
  };
}
