import { describe, expect, it } from "vitest";
import { ManualScheduler, settle } from "../../actors/runtime/index.ts";
import {
  FleetRouter,
  type FleetRouterOptions,
  type KvBucket,
  MemoryBusServer,
  MemoryKvServer,
  encodeClaim,
} from "../../fleet/index.ts";

/**
 * The router without the whole-bucket watch: other nodes' claims in a bounded cache read on a miss,
 * corrected by `MOVED`, and read again while a caller waits for a takeover.
 */

const me = { node: "n2", incarnation: "i-2" };
const peer = { node: "n1", incarnation: "i-1" };
const other = { node: "n3", incarnation: "i-3" };

/** The bucket, counting its reads. */
function counted(bucket: KvBucket): { bucket: KvBucket; reads: () => number } {
  let reads = 0;
  return {
    bucket: {
      name: bucket.name,
      get: (key) => {
        reads++;
        return bucket.get(key);
      },
      create: (k, v) => bucket.create(k, v),
      update: (k, v, r) => bucket.update(k, v, r),
      put: (k, v) => bucket.put(k, v),
      delete: (k, o) => bucket.delete(k, o),
      keys: (p) => bucket.keys(p),
      watch: (o, f) => bucket.watch(o, f),
    },
    reads: () => reads,
  };
}

async function setup(
  options: Partial<Pick<FleetRouterOptions, "cacheSize" | "ownerState" | "takingOver">> = {},
) {
  const raw = await new MemoryKvServer().connect().bucket("claims");
  const { bucket, reads } = counted(raw);
  const scheduler = new ManualScheduler();
  const router = new FleetRouter({
    claims: bucket,
    bus: new MemoryBusServer().connect(),
    identity: me,
    scheduler,
    ...options,
  }).start();
  return { claims: raw, reads, scheduler, router };
}

describe("FleetRouter's bounded claims cache", () => {
  it("keeps at most its size, counts what it evicts, and routes an evicted key again by reading it", async () => {
    const { claims, reads, router } = await setup({ cacheSize: 2 });
    for (const key of ["lobby/A", "lobby/B", "lobby/C"]) await claims.create(key, encodeClaim(peer));
    for (const key of ["lobby/A", "lobby/B", "lobby/C"])
      expect(await router.locate(key)).toEqual({ kind: "remote", node: "n1" });
    expect(router.cached).toBe(2);
    expect(router.evictions).toBe(1);
    expect(reads()).toBe(3);
    // B and C are cached: no read. A was evicted (least recently used): read again, still routed.
    expect(await router.locate("lobby/C")).toEqual({ kind: "remote", node: "n1" });
    expect(reads()).toBe(3);
    expect(await router.locate("lobby/A")).toEqual({ kind: "remote", node: "n1" });
    expect(reads()).toBe(4);
    expect(router.cached).toBe(2);
    expect(router.evictions).toBe(2);
  });

  it("never evicts this node's own claims: they route here however many others are cached", async () => {
    const { claims, router } = await setup({ cacheSize: 1 });
    router.learn("lobby/MINE", me, 5);
    for (const key of ["lobby/A", "lobby/B"]) {
      await claims.create(key, encodeClaim(peer));
      await router.locate(key);
    }
    expect(router.evictions).toBe(1);
    expect(await router.locate("lobby/MINE")).toEqual({ kind: "local" });
    expect([...router.claimViews()].filter((c) => c.owner.node === "n2").map((c) => c.key)).toEqual([
      "lobby/MINE",
    ]);
  });
});

describe("FleetRouter without the whole-bucket watch", () => {
  it("keeps a stale claim until a MOVED answer drops it; the next look reads the new owner", async () => {
    const { claims, router } = await setup();
    const revision = await claims.create("queue/duel", encodeClaim(peer));
    expect(await router.locate("queue/duel")).toEqual({ kind: "remote", node: "n1" });
    // The queue migrates to n3: nothing tells this node.
    await claims.update("queue/duel", encodeClaim(other), revision);
    await settle();
    expect(await router.locate("queue/duel")).toEqual({ kind: "remote", node: "n1" });
    // n1 answers MOVED (message delivery invalidates the key and delivers again).
    router.invalidate("queue/duel");
    expect(await router.locate("queue/duel")).toEqual({ kind: "remote", node: "n3" });
  });

  it("wakes a caller waiting for a takeover on another node by reading the claim while it waits", async () => {
    const { claims, reads, scheduler, router } = await setup();
    const revision = await claims.create("lobby/AAA", encodeClaim(peer));
    await router.locate("lobby/AAA");
    let woken = false;
    void router.changed("lobby/AAA", 60_000).then(() => (woken = true));
    await scheduler.advance(500);
    expect(woken).toBe(false);
    const quiet = reads();
    expect(quiet).toBeGreaterThan(1);
    // A survivor takes the lobby over.
    await claims.update("lobby/AAA", encodeClaim(other), revision);
    await scheduler.advance(400);
    await settle();
    expect(woken).toBe(true);
    expect(await router.locate("lobby/AAA")).toEqual({ kind: "remote", node: "n3" });
    // Nobody waits any more: no more reads.
    const after = reads();
    await scheduler.advance(5_000);
    expect(reads()).toBe(after);
  });

  it("reads no claim while its owner is only suspected, and reads it again once the owner is dead", async () => {
    let state: "live" | "suspected" | "dead" = "live";
    const {
      claims: raw,
      reads,
      scheduler,
      router,
    } = await setup({
      ownerState: (owner) => (owner.node === "n1" ? state : "live"),
    });
    const revision = await raw.create("lobby/AAA", encodeClaim(peer));
    expect(await router.locate("lobby/AAA")).toEqual({ kind: "remote", node: "n1" });
    expect(reads()).toBe(1);
    state = "suspected";
    // Members retry and wait while the owner is suspected: nobody may take the key yet, so no reads.
    let woken = false;
    void router.changed("lobby/AAA", 60_000).then(() => (woken = true));
    for (let i = 0; i < 5; i++) {
      expect(await router.locate("lobby/AAA")).toMatchObject({ kind: "unavailable" });
      await scheduler.advance(400);
    }
    expect(reads()).toBe(1);
    expect(woken).toBe(false);
    // It is declared dead and a survivor takes the key: the next look reads the claim again.
    state = "dead";
    await raw.update("lobby/AAA", encodeClaim(other), revision);
    expect(await router.locate("lobby/AAA")).toMatchObject({ kind: "unavailable" });
    expect(await router.locate("lobby/AAA")).toEqual({ kind: "remote", node: "n3" });
    expect(reads()).toBe(2);
    await settle();
    expect(woken).toBe(true);
  });

  it("a waiter parked while the owner is suspected reads again by itself once the owner is heard live, and finds the key moved", async () => {
    let state: "live" | "suspected" = "live";
    const {
      claims: raw,
      reads,
      scheduler,
      router,
    } = await setup({
      ownerState: (owner) => (owner.node === "n1" ? state : "live"),
    });
    const revision = await raw.create("lobby/AAA", encodeClaim(peer));
    await router.locate("lobby/AAA");
    state = "suspected";
    let woken = false;
    void router.changed("lobby/AAA", 60_000).then(() => (woken = true));
    // Suspected, yet alive: it drains the key to n3 meanwhile. Nothing is read while it is suspected.
    await raw.update("lobby/AAA", encodeClaim(other), revision);
    await scheduler.advance(3_000);
    expect(reads()).toBe(1);
    expect(woken).toBe(false);
    // Heard again: the next turn reads the claim, finds it moved, and wakes the waiter long before its limit.
    state = "live";
    await scheduler.advance(400);
    await settle();
    expect(woken).toBe(true);
    expect(reads()).toBe(2);
    expect(await router.locate("lobby/AAA")).toEqual({ kind: "remote", node: "n3" });
  });

  it("keeps one chain of reads for a key woken while its read is in flight and waited for again", async () => {
    const raw = await new MemoryKvServer().connect().bucket("claims");
    let release: () => void = () => undefined;
    let held = 0;
    const slow: KvBucket = {
      ...counted(raw).bucket,
      get: async (key) => {
        held++;
        await new Promise<void>((resolve) => (release = resolve));
        return raw.get(key);
      },
    };
    await raw.create("lobby/AAA", encodeClaim(peer));
    const scheduler = new ManualScheduler();
    const router = new FleetRouter({
      claims: slow,
      bus: new MemoryBusServer().connect(),
      identity: me,
      scheduler,
    });
    void router.changed("lobby/AAA", 60_000);
    await scheduler.advance(50);
    expect(held).toBe(1);
    // A wake (a MOVED, say) while the read is in flight, then a new waiter: its own chain starts.
    router.invalidate("lobby/AAA");
    void router.changed("lobby/AAA", 60_000);
    release();
    await settle();
    await scheduler.advance(50);
    expect(held).toBe(2);
    release();
    await settle();
    // From here one read a turn (100, 200, 400 ms), not two.
    await scheduler.advance(100);
    expect(held).toBe(3);
    release();
    await settle();
    await scheduler.advance(200);
    expect(held).toBe(4);
  });

  it("reads nothing for a waiter while this node is taking the key over", async () => {
    let taking = false;
    const {
      claims: raw,
      reads,
      scheduler,
      router,
    } = await setup({
      takingOver: (key) => taking && key === "lobby/AAA",
    });
    await raw.create("lobby/AAA", encodeClaim(peer));
    await router.locate("lobby/AAA");
    taking = true;
    let woken = false;
    void router.changed("lobby/AAA", 60_000).then(() => (woken = true));
    await scheduler.advance(2_000);
    expect(reads()).toBe(1);
    // The takeover ends here (no longer in flight, then learnt): the waiter is woken, with no read.
    taking = false;
    router.learn("lobby/AAA", me, 7);
    await settle();
    expect(woken).toBe(true);
    expect(reads()).toBe(1);
  });
});

describe("FleetRouter's full view beside a node of the previous release", () => {
  it("watches the whole bucket while asked to (claims counted for placement), and is bounded again after", async () => {
    const { claims, router } = await setup({ cacheSize: 1 });
    for (const key of ["lobby/A", "lobby/B", "lobby/C"]) await claims.create(key, encodeClaim(peer));
    expect(router.ownedBy(peer)).toBeUndefined();
    router.setFullView(true);
    await settle();
    expect(Object.fromEntries(router.ownedBy(peer) ?? [])).toEqual({ lobby: 3 });
    expect(router.cached).toBe(3);
    router.setFullView(false);
    expect(router.ownedBy(peer)).toBeUndefined();
    expect(router.cached).toBe(1);
    // The watch is off: a claim made now is not seen until it is looked up.
    await claims.create("lobby/D", encodeClaim(peer));
    await settle();
    expect(router.cached).toBe(1);
  });
});
