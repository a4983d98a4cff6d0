import { describe, expect, it } from "vitest";
import { NodeTransport } from "nats/lib/src/node_transport.js";
import { coalesceNatsWrites } from "../../fleet/nats/nats-write-coalescing.ts";

/** A socket that records what nats.js's transport does to it. */
function recordingSocket() {
  const calls: string[] = [];
  return {
    calls,
    destroyed: false,
    cork: () => calls.push("cork"),
    uncork: () => calls.push("uncork"),
    write: (frame: Uint8Array, done: (error?: Error) => void) => {
      calls.push(`write ${frame.length}`);
      done();
      return true;
    },
  };
}

/** Sends through nats.js's own `_send` (as patched) on a transport whose socket is `socket`. */
function send(socket: ReturnType<typeof recordingSocket>, frame: Uint8Array): Promise<void> {
  const transport = Object.create(NodeTransport.prototype) as NodeTransport;
  Object.assign(transport, { socket, options: {}, closed: false });
  return transport._send(frame);
}

describe("coalesceNatsWrites", () => {
  it("sends every frame of one turn of the event loop in one corked batch", async () => {
    coalesceNatsWrites();
    coalesceNatsWrites(); // idempotent: one wrapper, not two
    const socket = recordingSocket();
    const sent = [send(socket, new Uint8Array(3)), send(socket, new Uint8Array(5))];
    expect(socket.calls).toEqual(["cork", "write 3", "write 5"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(socket.calls).toEqual(["cork", "write 3", "write 5", "uncork"]);
    await Promise.all(sent);
    // The next turn corks again.
    void send(socket, new Uint8Array(7));
    expect(socket.calls.slice(4)).toEqual(["cork", "write 7"]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(socket.calls.at(-1)).toBe("uncork");
  });

  it("a close from outside sends what this turn corked before nats.js destroys the socket", async () => {
    coalesceNatsWrites();
    const socket = recordingSocket();
    const transport = Object.create(NodeTransport.prototype) as NodeTransport;
    Object.assign(transport, { socket, options: {}, closed: false });
    void transport._send(new Uint8Array(4));
    await transport.close();
    expect(socket.calls).toEqual(["cork", "write 4", "uncork"]);
  });

  it("leaves a destroyed socket to nats.js", () => {
    coalesceNatsWrites();
    const socket = { ...recordingSocket(), destroyed: true };
    void send(socket, new Uint8Array(2)).catch(() => undefined);
    expect(socket.calls).not.toContain("cork");
  });
});
