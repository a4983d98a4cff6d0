import { afterEach, describe, expect, it } from "vitest";
import type { AskResult } from "../../actors/runtime/index.ts";
import { MemoryBusServer, MemoryKvServer } from "../../fleet/index.ts";
import type { KvBucket } from "../../fleet/index.ts";
import { type FleetNode, startFleetNode } from "../support/fleet-nodes.ts";
import { silentWatch } from "./support/silent-watch.ts";

// Two (or three) ActorSystems sharing one in-memory KV and one in-memory bus, as nodes share NATS.

const running: FleetNode[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((node) => node.close()));
});

async function fleet(
  ids: readonly string[],
  claimsView?: (claims: KvBucket) => KvBucket,
): Promise<FleetNode[]> {
  const kv = new MemoryKvServer();
  const bus = new MemoryBusServer();
  const nodes = await Promise.all(
    ids.map((id) => startFleetNode(id, kv.connect(), bus.connect(), claimsView ? { claimsView } : {})),
  );
  running.push(...nodes);
  return nodes;
}

const value = (result: AskResult): unknown => (result.ok ? result.value : result.code);

describe("fleet routing over the in-memory KV and bus", () => {
  it("a key created on A is asked through B and answered by A; B never restores it", async () => {
    const [a, b] = await fleet(["a", "b"]);
    expect(await a!.system.spawn("counter/k1", undefined)).toMatchObject({ created: true });
    expect(await b!.router.locate("counter/k1")).toEqual({ kind: "remote", node: "a" });
    expect(await a!.router.locate("counter/k1")).toEqual({ kind: "local" });
    const answers = await Promise.all(
      [1, 2, 3].map((by) => b!.system.ask("counter/k1", { type: "add", by })),
    );
    expect(answers.map(value)).toEqual([1, 3, 6]);
    expect(value(await b!.system.ask("counter/k1", { type: "get" }))).toBe(6);
    expect(a!.system.peek("counter/k1")).toEqual({ n: 6 });
    expect(b!.system.isLive("counter/k1")).toBe(false);
    // Even told directly to restore it (a forwarded message), B refuses: the claim is A's.
    expect(await b!.system.ask("counter/k1", { type: "get" }, { here: true })).toMatchObject({
      ok: false,
      code: "MOVED",
    });
    expect(b!.system.isLive("counter/k1")).toBe(false);
  });

  it("tells are carried to the owner too", async () => {
    const [a, b] = await fleet(["a", "b"]);
    await a!.system.spawn("counter/t1", undefined);
    await b!.router.locate("counter/t1");
    b!.system.tell("counter/t1", { type: "add", by: 5 });
    await expect.poll(() => a!.system.peek("counter/t1")).toEqual({ n: 5 });
    expect(b!.system.isLive("counter/t1")).toBe(false);
  });

  it("a created-on-demand key touched by both nodes at once ends with exactly one owner", async () => {
    const [a, b] = await fleet(["a", "b"]);
    for (let round = 0; round < 20; round += 1) {
      const key = `tally/r${round}`;
      const answers = await Promise.all([
        a!.system.ask(key, { type: "add", by: 1 }),
        b!.system.ask(key, { type: "add", by: 1 }),
        a!.system.ask(key, { type: "add", by: 1 }),
        b!.system.ask(key, { type: "add", by: 1 }),
      ]);
      expect(
        answers.every((answer) => answer.ok),
        `round ${round}`,
      ).toBe(true);
      expect(answers.map(value).sort(), `round ${round}`).toEqual([1, 2, 3, 4]);
      const live = [a!, b!].filter((node) => node.system.isLive(key));
      expect(live, `round ${round}`).toHaveLength(1);
      const owner = live[0]!;
      const other = owner === a ? b! : a!;
      expect(await other.router.locate(key)).toEqual({ kind: "remote", node: owner.id });
    }
  });

  it("a request id retried through the other node is applied once", async () => {
    const [a, b] = await fleet(["a", "b"]);
    await a!.system.spawn("counter/r1", undefined);
    const request = { session: "s-1", id: 7 };
    expect(await a!.system.ask("counter/r1", { type: "add", by: 10 }, { request })).toEqual({
      ok: true,
      value: 10,
    });
    expect(await b!.system.ask("counter/r1", { type: "add", by: 10 }, { request })).toEqual({
      ok: true,
      value: 10,
    });
    expect(await b!.system.ask("counter/r1", { type: "add", by: 10 }, { request })).toEqual({
      ok: true,
      value: 10,
    });
    expect(value(await b!.system.ask("counter/r1", { type: "get" }))).toBe(10);
  });

  it("MOVED from an owner that forgot the key makes the sender look again (watch silent)", async () => {
    const [a, b] = await fleet(["a", "b"], silentWatch);
    await a!.system.spawn("counter/m1", undefined);
    expect(value(await b!.system.ask("counter/m1", { type: "add", by: 2 }))).toBe(2);
    expect(await b!.router.locate("counter/m1")).toEqual({ kind: "remote", node: "a" }); // cached
    // The key moves to B (as a migration would): A drops it, the claim names B now.
    expect(a!.system.passivateIdle()).toBe(1);
    const claim = (await a!.claims.get("counter/m1"))!;
    expect(await b!.store.takeOver("counter/m1", claim.revision)).toMatchObject({ outcome: "taken" });
    const answers: AskResult[] = [];
    const forward = b!.router.forward.bind(b!.router);
    b!.router.forward = async (...args) => {
      const answer = await forward(...args);
      answers.push(answer);
      return answer;
    };
    expect(value(await b!.system.ask("counter/m1", { type: "add", by: 3 }))).toBe(5);
    expect(answers).toEqual([expect.objectContaining({ ok: false, code: "MOVED", retryAfterMs: 500 })]);
    expect(b!.system.isLive("counter/m1")).toBe(true);
    expect(a!.system.isLive("counter/m1")).toBe(false);
    expect(await b!.router.locate("counter/m1")).toEqual({ kind: "local" });
  });

  it("no responders right after a peer subscribes is retried, not answered", async () => {
    const [a, b] = await fleet(["a", "b"]);
    await a!.system.spawn("counter/n1", undefined);
    await b!.router.locate("counter/n1");
    // A's endpoint is away for a moment, as its subscription is on other servers just after it starts.
    a!.endpoint.stop();
    const asked = b!.system.ask("counter/n1", { type: "add", by: 4 });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await a!.endpoint.start();
    expect(await asked).toEqual({ ok: true, value: 4 });
    // A node that never answers: the sender is told to retry later, not that the key is gone.
    a!.endpoint.stop();
    expect(await b!.system.ask("counter/n1", { type: "get" })).toMatchObject({
      ok: false,
      code: "UNAVAILABLE",
      retryAfterMs: 250,
    });
  });
});
