import { pack, unpack } from "msgpackr";
import { describe, expect, it } from "vitest";
import type { StampedFrame } from "../../actors/runtime/index.ts";
import {
  type Bus,
  MemoryBusServer,
  PushRelay,
  PushRoutes,
  nodePushSubject,
  pushRelaySubject,
} from "../../fleet/index.ts";

// The push relay sends a frame to the gateways that hold its players, not to every node: the first frame
// for a player this node does not know is broadcast, the gateway that delivered it says so, and later
// frames go to that gateway alone — until it no longer holds the player (a reconnect elsewhere, a gateway
// gone), when the player is broadcast to again.

const frame = (seq: number): StampedFrame => ({ type: "matchFound", key: "queue/Duel", epoch: 1, seq });

/** Counts the broadcasts each connection is delivered. */
function countingBus(bus: Bus, counted: { broadcasts: number }): Bus {
  return {
    ...bus,
    publish: (subject, data) => {
      bus.publish(subject, data);
    },
    subscribe: (subject, handler) =>
      bus.subscribe(subject, (message) => {
        if (message.subject === pushRelaySubject) counted.broadcasts++;
        handler(message);
      }),
    request: (subject, data, opts) => bus.request(subject, data, opts),
    flush: () => bus.flush(),
    close: () => bus.close(),
  };
}

async function fleetOf(ids: readonly string[]) {
  const server = new MemoryBusServer();
  const connected: Record<string, string[]> = {};
  const heard: Record<string, number[]> = {};
  const broadcasts: Record<string, { broadcasts: number }> = {};
  const relays: Record<string, PushRelay> = {};
  const buses: Record<string, Bus> = {};
  for (const id of ids) {
    connected[id] = [];
    heard[id] = [];
    broadcasts[id] = { broadcasts: 0 };
    buses[id] = countingBus(server.connect(), broadcasts[id]);
    relays[id] = new PushRelay({
      bus: buses[id],
      node: id,
      local: {
        push: (players, f) => {
          for (const p of players) if (connected[id]?.includes(p)) heard[id]?.push(f.seq);
        },
      },
      here: (p) => connected[id]?.includes(p) ?? false,
    });
    await relays[id].start();
  }
  const relay = (id: string): PushRelay => relays[id] ?? expect.unreachable(`no relay ${id}`);
  return { connected, heard, broadcasts, relay, buses };
}

describe("the push relay's routes to gateways", () => {
  it("sends a player's frames to its gateway alone once that gateway said it holds the player", async () => {
    const { connected, heard, broadcasts, relay } = await fleetOf(["a", "b", "c", "d"]);
    connected.b = ["ann"];
    relay("a").push(["ann"], frame(1));
    await expect.poll(() => relay("a").knownGateways).toBe(1);
    relay("a").push(["ann"], frame(2));
    relay("a").push(["ann"], frame(3));
    await expect.poll(() => heard.b).toEqual([1, 2, 3]);
    // c and d heard the first frame's broadcast only.
    expect(broadcasts.c?.broadcasts).toBe(1);
    expect(broadcasts.d?.broadcasts).toBe(1);
    expect(heard.c).toEqual([]);
  });

  it("broadcasts again to a player its gateway no longer holds, and learns where it went", async () => {
    const { connected, heard, broadcasts, relay } = await fleetOf(["a", "b", "c"]);
    connected.b = ["ann"];
    relay("a").push(["ann"], frame(1));
    await expect.poll(() => relay("a").knownGateways).toBe(1);
    // ann reconnected to c: b answers that it misses her, a broadcasts, c delivers and says so.
    connected.b = [];
    connected.c = ["ann"];
    relay("a").push(["ann"], frame(2));
    await expect.poll(() => heard.c).toEqual([2]);
    await expect.poll(() => broadcasts.c?.broadcasts).toBe(2);
    relay("a").push(["ann"], frame(3));
    await expect.poll(() => heard.c).toEqual([2, 3]);
    expect(broadcasts.c?.broadcasts).toBe(2);
    expect(heard.b).toEqual([1]);
  });

  it("broadcasts to a gateway's players when the gateway does not answer (it is gone)", async () => {
    const { connected, heard, broadcasts, relay, buses } = await fleetOf(["a", "b", "c"]);
    connected.b = ["ann"];
    relay("a").push(["ann"], frame(1));
    await expect.poll(() => relay("a").knownGateways).toBe(1);
    await buses.b?.close();
    connected.c = ["ann"];
    relay("a").push(["ann"], frame(2));
    await expect.poll(() => heard.c).toEqual([2]);
    // c said it holds ann: the next frame goes to c alone.
    await expect.poll(() => broadcasts.c?.broadcasts).toBe(2);
    relay("a").push(["ann"], frame(3));
    await expect.poll(() => heard.c).toEqual([2, 3]);
    expect(broadcasts.c?.broadcasts).toBe(2);
  });

  it("hands a frame that comes twice (sent direct, its answer late, then broadcast) to its player once", async () => {
    const { connected, heard, relay, buses } = await fleetOf(["a", "b"]);
    connected.b = ["ann"];
    const sender = buses.a ?? expect.unreachable("no bus a");
    const relayed = (f: StampedFrame) => pack({ from: "a", players: ["ann"], frame: f });
    // The direct send is delivered, but its answer came too late for the sender: it broadcasts as well.
    const answer = unpack(
      await sender.request(nodePushSubject("b"), relayed(frame(7)), { timeoutMs: 1_000 }),
    );
    expect(answer).toEqual({ missed: [] });
    sender.publish(pushRelaySubject, relayed(frame(7)));
    sender.publish(pushRelaySubject, relayed(frame(6)));
    sender.publish(pushRelaySubject, relayed(frame(8)));
    await expect.poll(() => heard.b).toEqual([7, 8]);
    // A repeat still counts as held: the sender is not told ann is gone.
    const again = unpack(await sender.request(nodePushSubject("b"), relayed(frame(8)), { timeoutMs: 1_000 }));
    expect(again).toEqual({ missed: [] });
    // A newer owner (a higher epoch) starts its sequence again.
    sender.publish(pushRelaySubject, relayed({ ...frame(1), epoch: 2 }));
    await expect.poll(() => heard.b).toEqual([7, 8, 1]);
    expect(relay("b").knownGateways).toBe(0);
  });

  it("remembers a bounded number of players, forgetting the oldest first", () => {
    const routes = new PushRoutes(2);
    routes.learn("b", ["ann", "bob"]);
    routes.learn("c", ["cid"]);
    expect(routes.size).toBe(2);
    const { byNode, unknown } = routes.split(["ann", "bob", "cid"]);
    expect(unknown).toEqual(["ann"]);
    expect([...byNode]).toEqual([
      ["b", ["bob"]],
      ["c", ["cid"]],
    ]);
  });
});
