import { describe, expect, it } from "vitest";
import { ManualScheduler, settle } from "../../actors/runtime/index.ts";
import { MemoryKvServer, encodeNodeRecord } from "../../fleet/index.ts";
import { member } from "./support/membership.ts";

describe("Membership.ownerState", () => {
  it("a claim of an incarnation not read yet, after its node's tombstone, is unknown — not dead", async () => {
    // Found by the fleet simulation (seed 203): a fenced node rejoined as a new incarnation and claimed a
    // key; a peer that still held the old tombstone called the new incarnation dead and took the key.
    const scheduler = new ManualScheduler();
    const nodes = await new MemoryKvServer().connect().bucket("nodes");
    const a = member(nodes, "n1", "a1", scheduler);
    const b = member(nodes, "n2", "b1", scheduler);
    await a.join();
    await b.join();
    await b.tick();
    expect(b.ownerState({ node: "n1", incarnation: "a1" })).toBe("live");
    const record = (await nodes.get("n1"))!;
    await nodes.update("n1", encodeNodeRecord({ dead: true, incarnation: "a1", by: "n3" }), record.revision);
    await b.tick();
    expect(b.ownerState({ node: "n1", incarnation: "a1" })).toBe("dead");
    expect(b.ownerState({ node: "n1", incarnation: "a2" })).toBe("unknown");
    // Once a2 heartbeats and is read, it is live.
    await a.rejoin("a2");
    await b.tick();
    expect(b.ownerState({ node: "n1", incarnation: "a2" })).toBe("live");
  });

  it("a claim of an older incarnation, replaced by a live one, is dead", async () => {
    const scheduler = new ManualScheduler();
    const nodes = await new MemoryKvServer().connect().bucket("nodes");
    const b = member(nodes, "n2", "b1", scheduler);
    await member(nodes, "n1", "a2", scheduler).join();
    await b.join();
    await b.tick();
    expect(b.ownerState({ node: "n1", incarnation: "a1" })).toBe("dead");
  });
});

describe("Membership: a tombstone another observer wrote", () => {
  it("declares its node dead as soon as the watch delivers it, not at the next round", async () => {
    const scheduler = new ManualScheduler();
    const nodes = await new MemoryKvServer().connect().bucket("nodes");
    await member(nodes, "n1", "a1", scheduler).join();
    const dead: string[] = [];
    const watching = member(nodes, "n2", "b1", scheduler, undefined, {
      peerDead: (peer) => dead.push(`${peer.node}/${peer.incarnation}`),
    });
    await watching.join();
    await watching.tick();
    watching.start();
    await settle();
    expect(watching.ownerState({ node: "n1", incarnation: "a1" })).toBe("live");
    // n3 declares n1 dead; no round of the watching node runs (the clock does not move).
    const record = (await nodes.get("n1"))!;
    await nodes.update("n1", encodeNodeRecord({ dead: true, incarnation: "a1", by: "n3" }), record.revision);
    await settle();
    expect(watching.ownerState({ node: "n1", incarnation: "a1" })).toBe("dead");
    expect(dead).toEqual(["n1/a1"]);
    watching.stop();
  });
});

/**
 * An observer and a peer whose last heartbeat lands `lastBeatAt` ms in (after the observer's first round
 * at 1,000); the clock then moves `stepMs` at a time. Resolves with the times the peer was declared dead.
 */
async function declaredAfterLastBeat(lastBeatAt: number, stepMs: number): Promise<number[]> {
  const scheduler = new ManualScheduler();
  const t0 = scheduler.now();
  const nodes = await new MemoryKvServer().connect().bucket("nodes");
  const peer = member(nodes, "n1", "a1", scheduler);
  await peer.join();
  const declared: number[] = [];
  const observer = member(nodes, "n2", "b1", scheduler, undefined, {
    peerDead: () => declared.push(scheduler.now() - t0),
  });
  await observer.join();
  observer.start();
  await scheduler.advance(1_000); // the observer's first round reads n1
  await scheduler.advance(lastBeatAt - 1_000);
  await peer.tick(); // the watch hears it when it lands, not at the next round
  await settle();
  for (let t = lastBeatAt; t < 6_000 && declared.length === 0; t += stepMs) await scheduler.advance(stepMs);
  observer.stop();
  return declared;
}

describe("Membership: silence counted from the peer's last write", () => {
  it("declares a silent peer dead at the failure timeout after its last heartbeat landed, between rounds", async () => {
    const declared = await declaredAfterLastBeat(1_500, 250);
    // Rounds alone would see it only at 2,000 and declare it at the 5,000 round.
    expect(declared).toHaveLength(1);
    expect(declared[0]).toBeGreaterThanOrEqual(4_500);
    expect(declared[0]).toBeLessThan(5_000);
  });

  it("checks when the silence comes due, not at the next quarter heartbeat", async () => {
    // The last heartbeat lands at 1,610, between the quarter-heartbeat checks.
    const declared = await declaredAfterLastBeat(1_610, 10);
    // Quarter-heartbeat checks alone (every 250 ms from 1,000) would declare it at 4,750.
    expect(declared).toHaveLength(1);
    expect(declared[0]).toBeGreaterThanOrEqual(4_610);
    expect(declared[0]).toBeLessThanOrEqual(4_620);
  });
});

describe("Membership.claimantNodes", () => {
  it("a draining node, itself or a peer, is no claimant of dead nodes' keys — unless every live node drains", async () => {
    const scheduler = new ManualScheduler();
    const nodes = await new MemoryKvServer().connect().bucket("nodes");
    const drains = { n1: false, n2: false };
    const a = member(nodes, "n1", "a1", scheduler, () => drains.n1);
    const b = member(nodes, "n2", "b1", scheduler, () => drains.n2);
    await a.join();
    await b.join();
    await Promise.all([a.tick(), b.tick()]);
    expect([a.claimantNodes(), b.claimantNodes()]).toEqual([
      ["n1", "n2"],
      ["n1", "n2"],
    ]);
    drains.n2 = true;
    await Promise.all([b.tick(), a.tick()]);
    // Both views agree: n2's own facts say it drains, and n1 read it in n2's heartbeat.
    expect([a.claimantNodes(), b.claimantNodes()]).toEqual([["n1"], ["n1"]]);
    drains.n1 = true;
    await Promise.all([a.tick(), b.tick()]);
    await Promise.all([a.tick(), b.tick()]);
    expect([a.claimantNodes(), b.claimantNodes()]).toEqual([
      ["n1", "n2"],
      ["n1", "n2"],
    ]);
  });
});
