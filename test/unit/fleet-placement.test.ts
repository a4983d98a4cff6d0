import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { ActorKind, StampedFrame } from "../../actors/runtime/index.ts";
import { MemoryBusServer, MemoryKvServer, PushRelay, chooseRoomHost } from "../../fleet/index.ts";
import { type FleetNode, startFleetNode } from "../support/fleet-nodes.ts";

// A spawn effect placed on another node (a queue match's room on the least-loaded node), and the push
// relay that carries a queue's frames to players on other gateways: ActorSystems over the in-memory KV
// and bus, as nodes share NATS.

const placeSchema = z.strictObject({ type: z.literal("place"), key: z.string(), node: z.string() });
const failedSchema = z.strictObject({ type: z.literal("spawnFailed"), key: z.string() });

/** `placer/…`: places `counter/…` actors on the node a message names, and counts the spawns that failed. */
const placerKind: ActorKind<
  { failed: string[] },
  z.infer<typeof placeSchema> | z.infer<typeof failedSchema>
> = {
  kind: "placer",
  schemaVersion: 1,
  create: () => ({ state: { failed: [] }, effects: [] }),
  parse: (m) => {
    const r = z.union([placeSchema, failedSchema]).safeParse(m);
    return r.success ? r.data : undefined;
  },
  handle(state, message) {
    switch (message.type) {
      case "place":
        return {
          state,
          effects: [
            { type: "spawn", key: message.key, init: undefined, node: message.node },
            { type: "reply" },
          ],
        };
      case "spawnFailed":
        return { state: { failed: [...state.failed, message.key] }, effects: [] };
      case "timer":
      case "restored":
        return { state, effects: [] };
    }
  },
  upgrade: (state) => state as { failed: string[] },
  idle: () => true,
};

const running: FleetNode[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((node) => node.close()));
});

async function fleet(ids: readonly string[]): Promise<FleetNode[]> {
  const kv = new MemoryKvServer();
  const bus = new MemoryBusServer();
  const nodes = await Promise.all(
    ids.map((id) =>
      startFleetNode(id, kv.connect(), bus.connect(), { kinds: [placerKind as ActorKind<never, never>] }),
    ),
  );
  running.push(...nodes);
  return nodes;
}

describe("a spawn placed on another node", () => {
  it("is created and claimed by that node, and answered there", async () => {
    const [a, b] = await fleet(["a", "b"]);
    await a!.system.spawn("placer/p", undefined);
    expect(await a!.system.ask("placer/p", { type: "place", key: "counter/r1", node: "b" })).toEqual({
      ok: true,
    });
    await expect.poll(() => b!.system.isLive("counter/r1")).toBe(true);
    expect(a!.system.isLive("counter/r1")).toBe(false);
    expect(await a!.router.locate("counter/r1")).toEqual({ kind: "remote", node: "b" });
    expect(await a!.system.ask("counter/r1", { type: "add", by: 2 })).toEqual({ ok: true, value: 2 });
    expect(a!.system.peek("placer/p")).toEqual({ failed: [] });
  });

  it("a spawn placed on the node itself is made there, as a plain spawn", async () => {
    const [a] = await fleet(["a", "b"]);
    await a!.system.spawn("placer/p", undefined);
    await a!.system.ask("placer/p", { type: "place", key: "counter/r2", node: "a" });
    await expect.poll(() => a!.system.isLive("counter/r2")).toBe(true);
  });

  it("a node that cannot take it refuses: nothing is made, the placer hears spawnFailed, the router remembers", async () => {
    const [a, b] = await fleet(["a", "b"]);
    b!.hosting = false;
    await a!.system.spawn("placer/p", undefined);
    await a!.system.ask("placer/p", { type: "place", key: "counter/r3", node: "b" });
    await expect.poll(() => a!.system.peek("placer/p")).toEqual({ failed: ["counter/r3"] });
    expect(b!.system.isLive("counter/r3")).toBe(false);
    expect(await a!.router.locate("counter/r3")).toEqual({ kind: "unknown" });
    expect(a!.router.refusedRecently("b")).toBe(true);
    expect(a!.router.refusedRecently("a")).toBe(false);
  });

  it("a key already taken is refused too", async () => {
    const [a, b] = await fleet(["a", "b"]);
    await a!.system.spawn("counter/r4", undefined);
    await a!.system.spawn("placer/p", undefined);
    await a!.system.ask("placer/p", { type: "place", key: "counter/r4", node: "b" });
    await expect.poll(() => a!.system.peek("placer/p")).toEqual({ failed: ["counter/r4"] });
    expect(b!.system.isLive("counter/r4")).toBe(false);
  });
});

describe("the push relay", () => {
  const frame = (key: string): StampedFrame => ({ type: "matchFound", key, epoch: 1, seq: 1, matchId: "m" });

  async function relays(
    ids: readonly string[],
    connected: Record<string, readonly string[]>,
    now: () => number = () => performance.now(),
  ) {
    const bus = new MemoryBusServer();
    const heard: Record<string, [string, string][]> = {};
    const made = await Promise.all(
      ids.map(async (id) => {
        heard[id] = [];
        const local = {
          push: (players: readonly string[], f: StampedFrame) => {
            for (const p of players) if (connected[id]?.includes(p)) heard[id]!.push([p, f.key]);
          },
        };
        const relay = new PushRelay({
          bus: bus.connect(),
          node: id,
          local,
          here: (p) => connected[id]?.includes(p) ?? false,
          now,
        });
        await relay.start();
        return relay;
      }),
    );
    return { relays: made, heard };
  }

  it("carries a queue's frame to players connected to other nodes, once each", async () => {
    const {
      relays: [a],
      heard,
    } = await relays(["a", "b", "c"], { a: ["ann"], b: ["bob"], c: ["cid"] });
    a!.push(["ann", "bob", "cid", "nobody"], frame("queue/Duel"));
    await expect
      .poll(() => heard)
      .toEqual({
        a: [["ann", "queue/Duel"]],
        b: [["bob", "queue/Duel"]],
        c: [["cid", "queue/Duel"]],
      });
    a!.push(["bob"], frame("mmlobby/Duel/1"));
    await expect.poll(() => heard.b).toHaveLength(2);
  });

  it("leaves a lobby's frames on its node (its members are redirected there) and relays a room's", async () => {
    // A room's players may sit on its lobby's node: after a failover the two can be on different survivors.
    const {
      relays: [a],
      heard,
    } = await relays(["a", "b"], { a: [], b: ["bob"] });
    a!.push(["bob"], frame("lobby/ABCDEF"));
    a!.push(["bob"], frame("room/ABCDEF"));
    a!.push(["bob"], frame("queue/Duel"));
    await expect
      .poll(() => heard.b)
      .toEqual([
        ["bob", "room/ABCDEF"],
        ["bob", "queue/Duel"],
      ]);
  });
});

describe("the push relay after a lobby moved here", () => {
  const frame = (key: string, seq: number): StampedFrame => ({ type: "lobby", key, epoch: 2, seq });

  it("relays the lobby's frames to members still on the node it left, for a while", async () => {
    const bus = new MemoryBusServer();
    const clock = { ms: 0 };
    const heard: [string, number][] = [];
    const make = async (id: string, connected: readonly string[], record: boolean) => {
      const relay = new PushRelay({
        bus: bus.connect(),
        node: id,
        local: {
          push: (players, f) => {
            if (record) for (const p of players) if (connected.includes(p)) heard.push([p, f.seq]);
          },
        },
        here: (p) => connected.includes(p),
        now: () => clock.ms,
      });
      await relay.start();
      return relay;
    };
    const target = await make("target", [], false);
    await make("source", ["ann"], true);
    target.push(["ann"], frame("lobby/MOVED", 1)); // not moved here: its members are all here
    target.relayAfterMove("lobby/MOVED");
    target.push(["ann"], frame("lobby/MOVED", 2));
    target.push(["ann"], frame("lobby/OTHER", 3));
    await expect.poll(() => heard).toEqual([["ann", 2]]);
    clock.ms += 30_000; // the members have long moved over
    target.push(["ann"], frame("lobby/MOVED", 4));
    target.relayAfterMove("lobby/AGAIN");
    target.push(["ann"], frame("lobby/AGAIN", 5));
    await expect
      .poll(() => heard)
      .toEqual([
        ["ann", 2],
        ["ann", 5],
      ]);
  });
});

describe("choosing a match room's node", () => {
  const n = (node: string, load: number) => ({ node, url: `ws://${node}/ws`, load });

  it("takes the least-loaded node, the lower id on a tie", () => {
    expect(chooseRoomHost([n("a", 50), n("b", 3), n("c", 9)])).toEqual({ node: "b", url: "ws://b/ws" });
    expect(chooseRoomHost([n("c", 3), n("b", 3)])).toEqual({ node: "b", url: "ws://b/ws" });
  });

  it("passes over a node that refused a room a moment ago; none left: no host", () => {
    expect(chooseRoomHost([n("a", 50), n("b", 3)], (node) => node === "b")?.node).toBe("a");
    expect(chooseRoomHost([n("b", 3)], () => true)).toBeUndefined();
    expect(chooseRoomHost([])).toBeUndefined();
  });
});
