import { describe, expect, it } from "vitest";
import { Connection } from "../../gateway/connection.ts";
import { decodeServerFrame, encodeFrame } from "../../gateway/protocol/codec.ts";
import { connectionDeps } from "./support/connection-deps.ts";
import { gatewaySocketPairs } from "./support/gateway-socket-pair.ts";

/**
 * A gateway socket hands its events to its connection without a listener each (listeners cost every
 * seated client memory), and still calls the listeners others add.
 */

const pair = gatewaySocketPairs();

describe("a gateway socket", () => {
  it("holds no listener for its connection, which still answers its frames", async () => {
    const { ws, client } = await pair();
    const before = ws.eventNames();
    new Connection(ws, connectionDeps());
    expect(ws.eventNames()).toEqual(before);
    const answer = new Promise<Buffer>((resolve) => client.once("message", resolve));
    // A region probe's ping frame, answered before any hello.
    client.send(encodeFrame({ type: "ping", t: 7 }, "msgpack"));
    const decoded = decodeServerFrame(new Uint8Array(await answer));
    expect(decoded.ok && decoded.frame).toMatchObject({ type: "pong", t: 7 });
    client.close();
  });

  it("tells its connection of its close, which tells the server, before listeners added with `on`", async () => {
    const { ws, client } = await pair();
    const order: string[] = [];
    const connection = new Connection(ws, connectionDeps(), (gone) => {
      order.push(gone === connection ? "server" : "another connection");
    });
    const listened = new Promise<void>((resolve) =>
      ws.on("close", () => {
        order.push("listener");
        resolve();
      }),
    );
    client.close();
    await listened;
    await connection.whenClosed();
    expect(order).toEqual(["server", "listener"]);
  });

  it("takes an `error` with no listener of its own: the connection has it, nothing is thrown", async () => {
    const { ws, client } = await pair();
    new Connection(ws, connectionDeps());
    expect(ws.listenerCount("error")).toBe(0);
    expect(ws.emit("error", new Error("a bad frame"))).toBe(true);
    client.close();
  });
});
