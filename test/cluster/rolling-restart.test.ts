import { describe, expect, it } from "vitest";
import { PROTOCOL_VERSION } from "../../gateway/index.ts";
import { runRollingRestart } from "../../ops/rolling-restart.ts";

/**
 * `foyer rolling-restart --next-protocol` on 3 node processes under load: each node is drained and
 * restarted as a build that also speaks the next protocol version, so two releases run side by side;
 * nothing is lost and no caller sees an error.
 */
describe("foyer rolling-restart", () => {
  it("drains and restarts each of 3 nodes under load with zero lost lobbies, acks and errors", async () => {
    const result = await runRollingRestart({
      nodes: 3,
      nats: 3,
      lobbies: 24,
      nextProtocol: true,
      json: false,
    });
    expect(result.drains.map((d) => d.state)).toEqual(["done", "done", "done"]);
    expect(result.drains.every((d) => d.left === 0 && d.moved > 0)).toBe(true);
    expect(result.acks).toBeGreaterThan(0);
    expect(result.errorMessages).toEqual([]);
    expect({ lostLobbies: result.lostLobbies, lostAcks: result.lostAcks }).toEqual({
      lostLobbies: 0,
      lostAcks: 0,
    });
    // Two releases side by side until the last restart.
    expect(result.protocolsSeen).toEqual([
      [PROTOCOL_VERSION, PROTOCOL_VERSION + 1],
      [PROTOCOL_VERSION, PROTOCOL_VERSION + 1],
      [PROTOCOL_VERSION + 1],
    ]);
    expect(result.ok).toBe(true);
  }, 240_000);
});
