import { describe, expect, it } from "vitest";
import { settle } from "../../actors/runtime/index.ts";
import {
  MemoryBusServer,
  NodeEndpoint,
  encodeDelivery,
  nodeActorSubject,
  staleDisconnect,
} from "../../fleet/index.ts";

/**
 * Found by `test/cluster/rooms-fleet.test.ts` under load (docs/rooms.md): a room restored after a failover
 * counted a player back, then heard a disconnect another node told about the socket the player had left
 * there, and waited for the player, connected on the room's own node, until the test gave up.
 */
describe("a disconnect another node tells about a player connected here", () => {
  /** An endpoint on n2, where the players of `here` are connected, each in the keys listed. */
  async function endpointWith(here: Readonly<Record<string, readonly string[]>>) {
    const server = new MemoryBusServer();
    const told: { key: string; message: unknown }[] = [];
    const system = {
      tell: (key: string, message: unknown) => {
        told.push({ key, message });
      },
      ask: () => Promise.resolve({ ok: true as const }),
      spawn: () => Promise.resolve({ created: false as const }),
    };
    const endpoint = new NodeEndpoint({
      bus: server.connect(),
      node: "n2",
      system: system,
      inKeyHere: (player, key) => here[player]?.includes(key) === true,
    });
    await endpoint.start();
    const sender = server.connect();
    const tell = async (key: string, message: unknown): Promise<void> => {
      sender.publish(nodeActorSubject("n2"), encodeDelivery({ key, message, tell: true }));
      await settle();
    };
    return { told, tell };
  }

  it("is dropped when the player's session here is in that key; anything else is delivered", async () => {
    const { told, tell } = await endpointWith({ bob: ["room/ABCDEF"] });
    await tell("room/ABCDEF", { type: "connection", player: "bob", connected: false });
    expect(told).toEqual([]);
    const delivered = [
      // Not connected here, or connected here but not in that key (its own node will not report it gone).
      { key: "room/ABCDEF", message: { type: "connection", player: "carol", connected: false } },
      { key: "lobby/QWERTY", message: { type: "connection", player: "bob", connected: false } },
      { key: "room/ABCDEF", message: { type: "connection", player: "bob", connected: true } },
      { key: "room/ABCDEF", message: { type: "leaveSeat", player: "bob" } },
    ];
    for (const { key, message } of delivered) await tell(key, message);
    expect(told).toEqual(delivered);
  });

  it("is recognised only as a connection message naming a player", () => {
    const here = (): boolean => true;
    const key = "room/ABCDEF";
    expect(staleDisconnect(key, { type: "connection", player: "bob", connected: false }, here)).toBe(true);
    expect(staleDisconnect(key, { type: "connection", player: 7, connected: false }, here)).toBe(false);
    expect(staleDisconnect(key, { type: "connection", player: "bob" }, here)).toBe(false);
    expect(staleDisconnect(key, null, here)).toBe(false);
    expect(staleDisconnect(key, "connection", here)).toBe(false);
  });
});
