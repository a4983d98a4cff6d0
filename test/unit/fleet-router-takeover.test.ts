import { describe, expect, it } from "vitest";
import { ManualScheduler, settle } from "../../actors/runtime/index.ts";
import { FleetRouter, MemoryBusServer, MemoryKvServer, encodeClaim } from "../../fleet/index.ts";
import { silentWatch } from "./support/silent-watch.ts";

const me = { node: "n2", incarnation: "i-2" };
const dead = { node: "n1", incarnation: "i-1" };

async function setup() {
  const claims = await new MemoryKvServer().connect().bucket("claims");
  const scheduler = new ManualScheduler();
  // These cases follow the claims as the whole-bucket watch delivers them (the previous release's way).
  const router = new FleetRouter({
    claims,
    bus: new MemoryBusServer().connect(),
    identity: me,
    scheduler,
    watchAll: true,
  });
  router.start();
  return { claims, scheduler, router };
}

describe("FleetRouter.changed", () => {
  it("wakes a caller waiting on a key as soon as its claim changes hands, and only that caller", async () => {
    const { claims, router } = await setup();
    const revision = await claims.create("lobby/AAA", encodeClaim(dead));
    await claims.create("lobby/BBB", encodeClaim(dead));
    await settle();
    const woken: string[] = [];
    void router.changed("lobby/AAA", 60_000).then(() => woken.push("AAA"));
    void router.changed("lobby/BBB", 60_000).then(() => woken.push("BBB"));
    await settle();
    expect(woken).toEqual([]);
    // A survivor's takeover: the claim CAS that the watch delivers.
    await claims.update("lobby/AAA", encodeClaim(me), revision);
    await settle();
    expect(woken).toEqual(["AAA"]);
  });

  it("wakes on a takeover learnt here, ahead of the watch", async () => {
    const { router } = await setup();
    let woken = false;
    void router.changed("player/ann", 60_000).then(() => (woken = true));
    router.learn("player/ann", me, 7);
    await settle();
    expect(woken).toBe(true);
  });

  it("wakes every waiter when told an owner died, so each asks again at once", async () => {
    const { router } = await setup();
    const woken: string[] = [];
    void router.changed("lobby/AAA", 60_000).then(() => woken.push("AAA"));
    void router.changed("player/ann", 60_000).then(() => woken.push("ann"));
    await settle();
    router.wakeAll();
    await settle();
    expect(woken.sort()).toEqual(["AAA", "ann"]);
  });

  it("gives up after its longest wait when nothing changes", async () => {
    const { scheduler, router } = await setup();
    let woken = false;
    void router.changed("lobby/CCC", 250).then(() => (woken = true));
    await scheduler.advance(249);
    expect(woken).toBe(false);
    await scheduler.advance(1);
    await settle();
    expect(woken).toBe(true);
  });
});

describe("FleetRouter.locate of a dead owner's key", () => {
  it("answers retry shortly and names the key to be taken over, only once its owner is declared dead", async () => {
    const claims = await new MemoryKvServer().connect().bucket("claims");
    await claims.create("lobby/AAA", encodeClaim(dead));
    let state: "live" | "suspected" | "dead" = "suspected";
    const wanted: string[] = [];
    const router = new FleetRouter({
      claims,
      bus: new MemoryBusServer().connect(),
      identity: me,
      scheduler: new ManualScheduler(),
      ownerState: () => state,
      deadOwner: (claim) => wanted.push(`${claim.key}@${claim.owner.node}`),
    });
    expect(await router.locate("lobby/AAA")).toMatchObject({ kind: "unavailable" });
    expect(wanted).toEqual([]);
    state = "dead";
    expect(await router.locate("lobby/AAA")).toMatchObject({ kind: "unavailable" });
    expect(wanted).toEqual(["lobby/AAA@n1"]);
  });
});

describe("FleetRouter.reread", () => {
  it("learns the winner of a takeover that lost here, though the watch has not brought its claim", async () => {
    const claims = await new MemoryKvServer().connect().bucket("claims");
    const revision = await claims.create("room/AAA", encodeClaim(dead));
    const other = { node: "n3", incarnation: "i-3" };
    // A watch that delivers nothing (a lagging or silent consumer): the cache has only what was read.
    const router = new FleetRouter({
      claims: silentWatch(claims),
      bus: new MemoryBusServer().connect(),
      identity: me,
      scheduler: new ManualScheduler(),
      ownerState: (owner) => (owner.node === "n1" ? "dead" : "live"),
      watchAll: true,
    }).start();
    expect(await router.locate("room/AAA")).toMatchObject({ kind: "unavailable" });
    // n3's takeover wins the claim; ours, from the revision we knew, loses.
    await claims.update("room/AAA", encodeClaim(other), revision);
    expect(await router.locate("room/AAA")).toMatchObject({ kind: "unavailable" });
    let woken = false;
    void router.changed("room/AAA", 60_000).then(() => (woken = true));
    await router.reread("room/AAA");
    expect(await router.locate("room/AAA")).toEqual({ kind: "remote", node: "n3" });
    await settle();
    expect(woken).toBe(true);
    // A claim gone since (the room closed) is forgotten.
    await claims.delete("room/AAA");
    await router.reread("room/AAA");
    expect(await router.locate("room/AAA")).toEqual({ kind: "unknown" });
  });
});

describe("FleetRouter.locate of a key this node is taking over", () => {
  it("answers retry shortly until the seal is written, though the watch already shows our claim", async () => {
    const claims = await new MemoryKvServer().connect().bucket("claims");
    const revision = await claims.create("lobby/AAA", encodeClaim(dead));
    const taking = new Set(["lobby/AAA"]);
    const router = new FleetRouter({
      claims,
      bus: new MemoryBusServer().connect(),
      identity: me,
      scheduler: new ManualScheduler(),
      ownerState: (owner) => (owner.node === dead.node ? "dead" : "live"),
      takingOver: (key) => taking.has(key),
    });
    router.start();
    // Our claim CAS has landed and the watch brings it; the seal has not been written yet.
    const epoch = await claims.update("lobby/AAA", encodeClaim(me), revision);
    await settle();
    expect(await router.locate("lobby/AAA")).toMatchObject({ kind: "unavailable" });
    let woken = false;
    void router.changed("lobby/AAA", 60_000).then(() => (woken = true));
    await settle();
    expect(woken).toBe(false);
    // Sealed: the takeover ends, and `learn` wakes the caller even though the claim is not news.
    taking.delete("lobby/AAA");
    router.learn("lobby/AAA", me, epoch);
    await settle();
    expect(woken).toBe(true);
    expect(await router.locate("lobby/AAA")).toEqual({ kind: "local" });
  });
});

describe("FleetRouter.ownedBy", () => {
  it("counts each owner's cached claims by kind as claims are made, change hands and go", async () => {
    const { claims, router } = await setup();
    const aaa = await claims.create("lobby/AAA", encodeClaim(dead));
    await claims.create("lobby/BBB", encodeClaim(dead));
    await claims.create("player/ann", encodeClaim(me));
    await settle();
    expect(Object.fromEntries(router.ownedBy(dead) ?? [])).toEqual({ lobby: 2 });
    expect(Object.fromEntries(router.ownedBy(me) ?? [])).toEqual({ player: 1 });

    await claims.update("lobby/AAA", encodeClaim(me), aaa);
    await claims.delete("lobby/BBB");
    await settle();
    expect(Object.fromEntries(router.ownedBy(dead) ?? [])).toEqual({});
    expect(Object.fromEntries(router.ownedBy(me) ?? [])).toEqual({ lobby: 1, player: 1 });

    // A takeover learnt here ahead of the watch; a MOVED answer drops cached claims, never our own.
    router.learn("room/CCC", me, 9);
    router.invalidate("player/ann");
    expect(Object.fromEntries(router.ownedBy(me) ?? [])).toEqual({ lobby: 1, player: 1, room: 1 });
    // Same owner, a newer revision: still one claim.
    router.learn("room/CCC", me, 10);
    expect(Object.fromEntries(router.ownedBy(me) ?? [])).toEqual({ lobby: 1, player: 1, room: 1 });
  });
});
