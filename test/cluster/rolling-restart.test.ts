import { describe, expect, it } from "vitest";
import { runRollingRestart } from "../../ops/rolling-restart.ts";

/** `foyer rolling-restart` on 3 node processes under load: nothing lost, no error a caller sees. */
describe("foyer rolling-restart", () => {
  it("drains and restarts each of 3 nodes under load with zero lost lobbies, acks and errors", async () => {
    const result = await runRollingRestart({ nodes: 3, nats: 3, lobbies: 24, json: false });
    expect(result.drains.map((d) => d.state)).toEqual(["done", "done", "done"]);
    expect(result.drains.every((d) => d.left === 0 && d.moved > 0)).toBe(true);
    expect(result.acks).toBeGreaterThan(0);
    expect(result.errorMessages).toEqual([]);
    expect({ lostLobbies: result.lostLobbies, lostAcks: result.lostAcks }).toEqual({
      lostLobbies: 0,
      lostAcks: 0,
    });
    expect(result.ok).toBe(true);
  }, 240_000);
});
