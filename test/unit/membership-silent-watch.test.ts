import { describe, expect, it } from "vitest";
import { ManualScheduler } from "../../actors/runtime/index.ts";
import { MemoryKvServer, encodeNodeRecord, type Membership } from "../../fleet/index.ts";
import { silenceableWatch } from "../support/silenceable-watch.ts";
import { member } from "./support/membership.ts";

/** A peer n1 heartbeating on the raw bucket, an observer n2 whose watch can go silent; both started. */
async function fleetOfTwo() {
  const scheduler = new ManualScheduler();
  const t0 = scheduler.now();
  const nodes = await new MemoryKvServer().connect().bucket("nodes");
  const peer = member(nodes, "n1", "a1", scheduler);
  await peer.join();
  peer.start();
  // When n1's heartbeats land, from the store's side.
  const beats: number[] = [];
  const beatWatch = nodes.watch({ prefix: "n1" }, () => beats.push(scheduler.now() - t0));
  const ownBeats: number[] = [];
  const ownBeatWatch = nodes.watch({ prefix: "n2" }, () => ownBeats.push(scheduler.now() - t0));
  const view = silenceableWatch(nodes);
  const declared: number[] = [];
  const observer = member(view.bucket, "n2", "b1", scheduler, undefined, {
    peerDead: (dead) => {
      if (dead.node === "n1") declared.push(scheduler.now() - t0);
    },
  });
  await observer.join();
  observer.start();
  const elapsed = (): number => scheduler.now() - t0;
  /** Moves time on to `until` in 50 ms steps, collecting how n1 looks to the observer at each. */
  const runUntil = async (until: number, states: string[] = []): Promise<string[]> => {
    while (elapsed() < until) {
      await scheduler.advance(50);
      states.push(observer.ownerState({ node: "n1", incarnation: "a1" }));
    }
    return states;
  };
  const stopAll = (): void => {
    beatWatch.stop();
    ownBeatWatch.stop();
    for (const m of [peer, observer] as Membership[]) m.stop();
  };
  return { nodes, peer, observer, view, beats, ownBeats, declared, runUntil, stopAll };
}

describe("Membership: rounds that read only when the watch is silent", () => {
  it("reads nothing while the watch delivers, and the same peer stays live", async () => {
    const fleet = await fleetOfTwo();
    await fleet.runUntil(2_500); // the first round reads every record: the table is complete
    const before = { ...fleet.view.state };
    const states = await fleet.runUntil(12_500);
    expect(fleet.view.state.gets - before.gets).toBe(0);
    expect(fleet.view.state.listings - before.listings).toBe(0);
    expect(new Set(states)).toEqual(new Set(["live"]));
    fleet.stopAll();
  });

  it("a silent watch neither suspects a live peer nor misses its death,", async () => {
    const fleet = await fleetOfTwo();
    await fleet.runUntil(2_500);
    fleet.view.state.silent = true;
    const readsBefore = fleet.view.state.gets;
    // Silent for seconds, longer than the failure timeout: the rounds read, so n1 stays live throughout.
    const silentStates = await fleet.runUntil(8_500);
    expect(new Set(silentStates)).toEqual(new Set(["live"]));
    expect(fleet.view.state.gets - readsBefore).toBeGreaterThan(4);
    // n1 dies (no tombstone: a kill -9) while the watch is still silent.
    fleet.peer.stop();
    const lastBeat = fleet.beats.at(-1) ?? Number.NaN;
    await fleet.runUntil(16_000);
    expect(fleet.declared).toHaveLength(1);
    // As the rounds alone declared it before: at the first round past the failure timeout.
    expect(fleet.declared[0]).toBeGreaterThanOrEqual(lastBeat + 3_000);
    expect(fleet.declared[0]).toBeLessThanOrEqual(lastBeat + 3_000 + 1_000 + 250);
    fleet.stopAll();
  });

  it("a silent watch does not delay every round: most of the node's own heartbeats stay a heartbeat apart", async () => {
    const fleet = await fleetOfTwo();
    await fleet.runUntil(2_500);
    fleet.view.state.silent = true;
    const from = fleet.ownBeats.length;
    await fleet.runUntil(10_500);
    const beats = fleet.ownBeats.slice(from);
    const gaps = beats.slice(1).map((at, i) => at - beats[i]!);
    // A round waits a quarter heartbeat for its own heartbeat when the watch is new (it is made again at
    // most once a failure timeout); the rounds after one that waited in vain read at once.
    expect(gaps.filter((gap) => gap === 1_000).length).toBeGreaterThanOrEqual(gaps.length / 2);
    expect(Math.max(...gaps)).toBe(1_250);
    fleet.stopAll();
  });

  it("a tombstone the watch missed is read when declaring the silent peer fails, so its death is taken", async () => {
    const fleet = await fleetOfTwo();
    await fleet.runUntil(2_500);
    // Between two rounds, the watch misses n1's death: another observer's tombstone (n1 was killed).
    fleet.view.state.silent = true;
    fleet.peer.stop();
    const lastBeat = fleet.beats.at(-1) ?? Number.NaN;
    const record = (await fleet.nodes.get("n1"))!;
    await fleet.nodes.update(
      "n1",
      encodeNodeRecord({ dead: true, incarnation: "a1", by: "n3" }),
      record.revision,
    );
    await fleet.runUntil(2_700);
    fleet.view.state.silent = false; // back before the next round: its own heartbeat is delivered
    await fleet.runUntil(9_000);
    // The tombstone this node writes at the failure timeout fails on the moved record, which it reads.
    expect(fleet.declared).toHaveLength(1);
    expect(fleet.declared[0]).toBeLessThanOrEqual(lastBeat + 3_000 + 300);
    expect(fleet.observer.ownerState({ node: "n1", incarnation: "a1" })).toBe("dead");
    fleet.stopAll();
  });

  it("a watch that comes back after missing updates is trusted again only once it delivers the round's own heartbeat", async () => {
    const fleet = await fleetOfTwo();
    await fleet.runUntil(2_500);
    fleet.view.state.silent = true;
    await fleet.runUntil(6_500);
    fleet.view.state.silent = false;
    await fleet.runUntil(8_500);
    const before = fleet.view.state.gets;
    const states = await fleet.runUntil(14_500);
    expect(fleet.view.state.gets - before).toBe(0);
    expect(new Set(states)).toEqual(new Set(["live"]));
    fleet.stopAll();
  });
});
