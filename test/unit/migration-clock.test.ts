import { pack } from "msgpackr";
import { describe, expect, it } from "vitest";
import type { Scheduler } from "../../actors/runtime/index.ts";
import type { Bus } from "../../fleet/bus.ts";
import { BusError, BusErrorCodes } from "../../fleet/bus-error.ts";
import { type MigrationHost, Migrations } from "../../fleet/protocol/migration.ts";

// Found by the fleet simulation (fleet/sim/): after an unanswered adoption the source re-read the claim
// on a real setTimeout, not on the node's scheduler — outside the virtual clock, so a seed whose claim
// read failed (a KV election) did not replay, and the wait could not be driven by a test's clock.

describe("Migrations' wait between claim reads", () => {
  it("runs on the scheduler it is given", async () => {
    const timers: { at: number; fn: () => void }[] = [];
    let now = 1_000;
    const scheduler: Scheduler = {
      now: () => now,
      at: (at, fn) => {
        timers.push({ at, fn });
        return () => undefined;
      },
    };
    const bus: Bus = {
      publish: () => undefined,
      subscribe: () => ({ subject: "", unsubscribe: () => undefined }),
      request: () => Promise.reject(new BusError(BusErrorCodes.timeout, "no answer")),
      flush: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    let reads = 0;
    const events: string[] = [];
    const identity = { node: "a", incarnation: "a.1" };
    const host: MigrationHost = {
      identity,
      bus,
      freeze: () => Promise.resolve({ epoch: 4, revision: 9 }),
      isLive: () => true,
      handOver: (key) => events.push(`handOver ${key}`),
      takeOver: () => Promise.resolve({ outcome: "taken", epoch: 7, revision: 10 }),
      readClaim: () => {
        reads++;
        if (reads === 1) return Promise.reject(new Error("the store did not answer"));
        return Promise.resolve({ owner: identity, revision: 4 });
      },
      learn: (key, owner, revision) => events.push(`learn ${key} ${owner.node} ${revision}`),
      adopted: () => undefined,
      moved: () => undefined,
      mayAdopt: () => true,
    };
    const moving = new Migrations(host, 100, scheduler).move("k", 4, { node: "b", url: "ws://b" });
    let outcome: string | undefined;
    void moving.then((o) => (outcome = o));
    for (let i = 0; i < 20 && timers.length === 0; i++) await new Promise((r) => setImmediate(r));
    expect(timers.map((t) => t.at)).toEqual([1_250]);
    // Nothing moves until the scheduler says the 250 ms passed, however long real time waits.
    await new Promise((r) => setTimeout(r, 300));
    expect(outcome).toBeUndefined();
    expect(reads).toBe(1);
    now = 1_250;
    timers[0]?.fn();
    expect(await moving).toBe("kept");
    expect(reads).toBe(2);
    expect(events).toEqual(["learn k a 7", "handOver k"]);
  });
});

describe("Migrations.adopting", () => {
  it("names a key from the adoption's request until its takeover has ended, and not after", async () => {
    let release: () => void = () => undefined;
    const seen: boolean[] = [];
    const identity = { node: "b", incarnation: "b.1" };
    const host: MigrationHost = {
      identity,
      bus: {
        publish: () => undefined,
        subscribe: () => ({ subject: "", unsubscribe: () => undefined }),
        request: () => Promise.reject(new BusError(BusErrorCodes.timeout, "no answer")),
        flush: () => Promise.resolve(),
        close: () => Promise.resolve(),
      },
      freeze: () => Promise.resolve(null),
      isLive: () => false,
      handOver: () => undefined,
      takeOver: () =>
        new Promise((resolve) => (release = () => resolve({ outcome: "taken", epoch: 7, revision: 10 }))),
      readClaim: () => Promise.resolve(null),
      learn: () => undefined,
      adopted: (key) => seen.push(migrations.adopting(key)),
      moved: () => undefined,
      mayAdopt: () => true,
    };
    const migrations = new Migrations(host);
    const answer = migrations.adopt(pack({ key: "lobby/K", epoch: 4 }));
    await new Promise((r) => setImmediate(r));
    // A read sealing the key meanwhile leaves telling the actor to this adoption (fleet-runtime.ts).
    expect(migrations.adopting("lobby/K")).toBe(true);
    release();
    expect(await answer).toMatchObject({ ok: true, epoch: 7 });
    expect(seen).toEqual([true]);
    expect(migrations.adopting("lobby/K")).toBe(false);
  });
});
