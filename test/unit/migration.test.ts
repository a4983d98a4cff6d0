import { afterEach, describe, expect, it } from "vitest";
import type { AskResult } from "../../actors/runtime/index.ts";
import { MemoryBusServer, MemoryKvServer, decodeClaim } from "../../fleet/index.ts";
import { type MigrationHost, Migrations } from "../../fleet/protocol/migration.ts";
import type { TakeOver } from "../../fleet/protocol/actor-store.ts";
import { type FleetNode, startFleetNode } from "../support/fleet-nodes.ts";

// Live migration between two nodes sharing one in-memory KV and bus (FLEET-PROTOCOL, "Migration").

const running: FleetNode[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((node) => node.close()));
});

async function pair(): Promise<[FleetNode, FleetNode]> {
  const kv = new MemoryKvServer();
  const bus = new MemoryBusServer();
  const a = await startFleetNode("a", kv.connect(), bus.connect());
  const b = await startFleetNode("b", kv.connect(), bus.connect());
  running.push(a, b);
  return [a, b];
}

const value = (result: AskResult): unknown => (result.ok ? result.value : result.code);
const add = (by: number) => ({ type: "add", by });

async function claimOf(node: FleetNode, key: string): Promise<{ node: string; revision: number }> {
  const entry = await node.claims.get(key);
  if (entry === null) throw new Error(`${key} has no claim`);
  return { node: decodeClaim(entry.value).node, revision: entry.revision };
}

describe("migration of one key", () => {
  it("moves a live actor with its state; the target owns it under a newer epoch and the members are sent there", async () => {
    const [a, b] = await pair();
    await a.system.spawn("counter/m1", undefined);
    expect(value(await a.system.ask("counter/m1", add(5)))).toBe(5);
    const before = await claimOf(a, "counter/m1");
    expect(await a.migrations.move("counter/m1", before.revision, { node: "b", url: "ws://b/ws" })).toBe(
      "moved",
    );
    const after = await claimOf(a, "counter/m1");
    expect(after.node).toBe("b");
    expect(after.revision).toBeGreaterThan(before.revision);
    expect(a.system.isLive("counter/m1")).toBe(false);
    expect(a.movedTold).toEqual(["counter/m1 → ws://b/ws"]);
    // Asked through the old owner: carried to the new one, state intact.
    expect(value(await a.system.ask("counter/m1", add(1)))).toBe(6);
    expect(b.system.peek("counter/m1")).toEqual({ n: 6 });
  });

  it("applies the requests that arrive during the move once each, in order, on the target", async () => {
    const [a, b] = await pair();
    await a.system.spawn("counter/m2", undefined);
    const { revision } = await claimOf(a, "counter/m2");
    const moving = a.migrations.move("counter/m2", revision, { node: "b", url: "ws://b/ws" });
    const asks = [1, 2, 3, 4].map((i) =>
      a.system.ask("counter/m2", add(i), { request: { session: "s1", id: i } }),
    );
    expect(await moving).toBe("moved");
    expect((await Promise.all(asks)).map(value)).toEqual([1, 3, 6, 10]);
    // A retry of one of them, through either node, is answered from the stored result, not applied again.
    expect(value(await b.system.ask("counter/m2", add(3), { request: { session: "s1", id: 3 } }))).toBe(6);
    expect(value(await a.system.ask("counter/m2", { type: "get" }))).toBe(10);
  });

  it("a target that refuses leaves the key with its source, taken back under a new epoch", async () => {
    const [a, b] = await pair();
    b.adopting = false;
    await a.system.spawn("counter/m3", undefined);
    await a.system.ask("counter/m3", add(2));
    const before = await claimOf(a, "counter/m3");
    expect(await a.migrations.move("counter/m3", before.revision, { node: "b", url: "ws://b/ws" })).toBe(
      "kept",
    );
    const after = await claimOf(a, "counter/m3");
    expect(after.node).toBe("a");
    // The epoch moved on, so a late adoption from the old epoch cannot land.
    expect(after.revision).toBeGreaterThan(before.revision);
    expect(value(await a.system.ask("counter/m3", add(1)))).toBe(3);
    expect(b.system.isLive("counter/m3")).toBe(false);
    expect(a.movedTold).toEqual([]);
  });

  it("a target that is gone (no answer) leaves the key with its source", async () => {
    const [a, b] = await pair();
    await a.system.spawn("counter/m4", undefined);
    await a.system.ask("counter/m4", add(7));
    await b.close();
    running.splice(running.indexOf(b), 1);
    const { revision } = await claimOf(a, "counter/m4");
    expect(await a.migrations.move("counter/m4", revision, { node: "b", url: "ws://b/ws" })).toBe("kept");
    expect((await claimOf(a, "counter/m4")).node).toBe("a");
    expect(value(await a.system.ask("counter/m4", add(1)))).toBe(8);
  });

  it("an adoption from an epoch the source no longer holds is refused and changes nothing", async () => {
    const [a, b] = await pair();
    await a.system.spawn("counter/m5", undefined);
    const { revision } = await claimOf(a, "counter/m5");
    await a.system.ask("counter/m5", add(1));
    // The source moved on (took the key back, say) before a late adoption arrived.
    expect((await a.store.takeOver("counter/m5", revision)).outcome).toBe("taken");
    const late = await b.migrations.adopt(new Uint8Array([0x82, 0xa3]));
    expect(late).toMatchObject({ ok: false });
    const { pack } = await import("msgpackr");
    expect(await b.migrations.adopt(pack({ key: "counter/m5", epoch: revision }))).toMatchObject({
      ok: false,
    });
    expect((await claimOf(a, "counter/m5")).node).toBe("a");
  });

  it("reports how long each key it froze stayed frozen, moved or kept, and nothing for a key not live", async () => {
    const [a, b] = await pair();
    const toA = { node: "a", url: "ws://a/ws" };
    const toB = { node: "b", url: "ws://b/ws" };
    const move = async (from: FleetNode, key: string, to: typeof toA) =>
      from.migrations.move(key, (await claimOf(from, key)).revision, to);
    await a.system.spawn("counter/f1", undefined);
    const started = Date.now();
    expect(await move(a, "counter/f1", toB)).toBe("moved");
    const took = Date.now() - started;
    await b.system.spawn("counter/f2", undefined);
    expect(await move(b, "counter/f2", toA)).toBe("moved");
    b.adopting = false;
    await a.system.spawn("counter/f3", undefined);
    expect(await move(a, "counter/f3", toB)).toBe("kept"); // frozen, then running on a again
    await a.system.spawn("counter/f4", undefined);
    await new Promise((resolve) => setTimeout(resolve, 10)); // the mailbox's run ends after its answer
    expect(a.system.passivateIdle(0, "counter/f4")).toBe(1);
    expect(await move(a, "counter/f4", toB)).toBe("kept"); // not live: nothing was frozen
    expect(a.frozen.map((f) => f.key)).toEqual(["counter/f1", "counter/f3"]);
    expect(b.frozen.map((f) => f.key)).toEqual(["counter/f2"]);
    for (const { ms } of [...a.frozen, ...b.frozen]) expect(ms).toBeTypeOf("number");
    expect(a.frozen[0]?.ms).toBeLessThanOrEqual(took);
  });

  it("moves a passivated key (only in the store) by its claim", async () => {
    const [a, b] = await pair();
    await a.system.spawn("counter/m6", undefined);
    await a.system.ask("counter/m6", add(4));
    await new Promise((resolve) => setTimeout(resolve, 10)); // the mailbox's run ends after its answer
    expect(a.system.passivateIdle()).toBe(1);
    const { revision } = await claimOf(a, "counter/m6");
    expect(await a.migrations.move("counter/m6", revision, { node: "b", url: "ws://b/ws" })).toBe("moved");
    expect(value(await b.system.ask("counter/m6", { type: "get" }))).toBe(4);
  });

  it("counts a key as adopting while any adoption of it is in flight, through an overlapping one that lost", async () => {
    const { pack } = await import("msgpackr");
    let land = (_: TakeOver): void => undefined;
    const seal = new Promise<TakeOver>((resolve) => {
      land = resolve;
    });
    const host: MigrationHost = {
      identity: { node: "b", incarnation: "i-b" },
      bus: new MemoryBusServer().connect(),
      freeze: () => Promise.resolve(null),
      isLive: () => false,
      handOver: () => undefined,
      // Epoch 7 is the claim's revision: the first adoption takes it (its seal held); the second, from a
      // stale view, loses at once.
      takeOver: (_key, revision) => (revision === 7 ? seal : Promise.resolve({ outcome: "lost" })),
      readClaim: () => Promise.resolve(null),
      learn: () => undefined,
      adopted: () => undefined,
      moved: () => undefined,
      mayAdopt: () => true,
    };
    const migrations = new Migrations(host);
    const first = migrations.adopt(pack({ key: "lobby/ABCD", epoch: 7 }));
    expect(migrations.adopting("lobby/ABCD")).toBe(true);
    expect(await migrations.adopt(pack({ key: "lobby/ABCD", epoch: 6 }))).toMatchObject({ ok: false });
    expect(migrations.adopting("lobby/ABCD")).toBe(true);
    land({ outcome: "taken", epoch: 8, revision: 20 });
    expect(await first).toMatchObject({ ok: true, epoch: 8 });
    expect(migrations.adopting("lobby/ABCD")).toBe(false);
  });
});
