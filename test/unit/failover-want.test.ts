import { describe, expect, it } from "vitest";
import { ManualScheduler, settle } from "../../actors/runtime/index.ts";
import { Failover, type ClaimView, type TakeOver } from "../../fleet/index.ts";
import type { OwnerState } from "../../fleet/index.ts";

const dead = { node: "n1", incarnation: "i-1" };
const live = { node: "n3", incarnation: "i-3" };

/** A failover on n2 whose takeovers wait until released, so the order they start in shows. */
function setup(options: { nodes?: string[]; concurrency?: number; scheduler?: ManualScheduler } = {}) {
  const started: string[] = [];
  const release: (() => void)[] = [];
  const claims: ClaimView[] = [];
  const failover = new Failover({
    node: "n2",
    claims: () => claims,
    ownerState: (owner): OwnerState => (owner.node === "n1" ? "dead" : "live"),
    liveNodes: () => options.nodes ?? ["n2", "n3"],
    takeOver: (key) => {
      started.push(key);
      return new Promise<TakeOver>((resolve) =>
        release.push(() => resolve({ outcome: "taken", epoch: 9, revision: 9 })),
      );
    },
    taken: () => undefined,
    scheduler: options.scheduler ?? new ManualScheduler(),
    fallbackAfterMs: 60_000,
    concurrency: options.concurrency ?? 1,
  });
  return { failover, started, release, claims };
}

const claim = (key: string, owner = dead): ClaimView => ({ key, owner, revision: 3 });

describe("Failover.want", () => {
  it("takes a key a caller waits for at once, ahead of the sweep's queue and past its limit", async () => {
    const { failover, started, claims } = setup();
    for (let i = 0; i < 50; i++) claims.push(claim(`player/p${i}`));
    failover.sweep();
    await settle();
    const queuedFirst = started.length;
    failover.want(claim("lobby/WANTED"));
    await settle();
    expect(started.at(-1)).toBe("lobby/WANTED");
    expect(started.length).toBe(queuedFirst + 1);
  });

  it("takes wanted lobbies before wanted players' records", async () => {
    const { failover, started, release, claims } = setup();
    claims.push(claim("player/first"));
    failover.sweep();
    await settle();
    // The one slot of the queue is busy; 512 more are for wanted keys. Fill them with records, then ask more.
    for (let i = 0; i < 520; i++) failover.want(claim(`player/p${i}`));
    failover.want(claim("lobby/LATE"));
    await settle();
    expect(started).not.toContain("lobby/LATE");
    release.shift()?.();
    await settle();
    expect(started.at(-1)).toBe("lobby/LATE");
  });

  it("the sweep leaves a dead owner's keys to be wanted for a moment, then takes its own share", async () => {
    const scheduler = new ManualScheduler();
    const { failover, started, claims } = setup({ scheduler, nodes: ["n2"], concurrency: 100 });
    for (let i = 0; i < 10; i++) claims.push(claim(`lobby/K${i}`));
    failover.sweep();
    await settle();
    expect(started).toEqual([]);
    failover.want(claim("lobby/K3"));
    await settle();
    expect(started).toEqual(["lobby/K3"]);
    await scheduler.advance(1_000);
    await settle();
    expect([...started].sort()).toEqual(claims.map((c) => c.key).sort());
  });

  it("takes it whichever survivor its rendezvous names", async () => {
    // With n2 the only other claimant out of the way, rendezvous would give some keys to n3: want ignores it.
    const { failover, started } = setup({ nodes: ["n2", "n3", "n4", "n5"] });
    for (let i = 0; i < 20; i++) failover.want(claim(`lobby/K${i}`));
    await settle();
    expect(started).toHaveLength(20);
  });

  it("leaves keys of live owners alone, and takes nothing while this node drains", async () => {
    const { failover, started } = setup();
    failover.want(claim("lobby/LIVE", live));
    const draining = setup({ nodes: ["n3"] });
    draining.failover.want(claim("lobby/DEAD"));
    await settle();
    expect(started).toEqual([]);
    expect(draining.started).toEqual([]);
  });

  it("starts a key once, however many callers want it", async () => {
    const { failover, started } = setup();
    failover.want(claim("lobby/ONCE"));
    failover.want(claim("lobby/ONCE"));
    failover.sweep();
    await settle();
    expect(started).toEqual(["lobby/ONCE"]);
  });
});

describe("Failover.taking", () => {
  it("holds a key from the moment it is wanted until just before `taken` is told", async () => {
    const seenWhenTaken: boolean[] = [];
    let release: () => void = () => undefined;
    const failover: Failover = new Failover({
      node: "n2",
      claims: () => [],
      ownerState: (owner): OwnerState => (owner.node === "n1" ? "dead" : "live"),
      liveNodes: () => ["n2"],
      takeOver: () =>
        new Promise<TakeOver>(
          (resolve) => (release = () => resolve({ outcome: "taken", epoch: 9, revision: 9 })),
        ),
      // A caller woken by `taken` asks for the key at once: it must find it no longer being taken.
      taken: (key) => seenWhenTaken.push(failover.taking(key)),
      scheduler: new ManualScheduler(),
      fallbackAfterMs: 60_000,
    });
    expect(failover.taking("lobby/AAA")).toBe(false);
    failover.want(claim("lobby/AAA"));
    expect(failover.taking("lobby/AAA")).toBe(true);
    await settle();
    expect(failover.taking("lobby/AAA")).toBe(true);
    release();
    await settle();
    expect(seenWhenTaken).toEqual([false]);
    expect(failover.taking("lobby/AAA")).toBe(false);
  });
});
