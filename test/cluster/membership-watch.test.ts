import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Membership,
  NatsKvStore,
  connectNats,
  realScheduler,
  type KvBucket,
  type MembershipEvents,
} from "../../fleet/index.ts";
import { type NatsLauncher, startNats } from "../../ops/nats/index.ts";
import { eventually } from "../support/node.ts";
import { silenceableWatch } from "../support/silenceable-watch.ts";

/**
 * Heartbeat rounds over a real nats-server's `nodes` watch: they read no peer's record while the watch
 * delivers the rounds' own heartbeats, and fall back to reading every record when it goes silent.
 */

let nats: NatsLauncher | undefined;
const stores: NatsKvStore[] = [];
const members: Membership[] = [];

beforeAll(async () => {
  nats = await startNats({ servers: 1 });
});

afterAll(async () => {
  for (const m of members) m.stop();
  await Promise.allSettled(stores.map((s) => s.close()));
  await nats?.stop();
});

/** The `nodes` bucket on a connection of its own (each node has one). */
async function nodesBucket(bucket: string): Promise<KvBucket> {
  const nc = await connectNats({ servers: nats?.url(0) ?? "" });
  const store = new NatsKvStore(nc, { replicas: 1, ownsConnection: true });
  stores.push(store);
  return store.bucket(bucket);
}

/** A started Membership on the real clocks, as a node runs it. */
async function started(nodes: KvBucket, node: string, events?: MembershipEvents): Promise<Membership> {
  const membership = new Membership({
    nodes,
    node,
    incarnation: `${node}.1`,
    scheduler: realScheduler(),
    monotonic: () => performance.now(),
    facts: () => ({ url: "", region: "r", load: 0, draining: false, version: "t", protocol: 1 }),
    ...(events === undefined ? {} : { events }),
  });
  members.push(membership);
  await membership.join();
  return membership.start();
}

describe("heartbeat rounds over a real nodes watch", () => {
  it("read no peer's record while the watch delivers", async () => {
    const peers = ["p1", "p2", "p3"];
    for (const peer of peers) await started(await nodesBucket("nodes-quiet"), peer);
    const view = silenceableWatch(await nodesBucket("nodes-quiet"));
    const rounds = { count: 0 };
    const observer = await started(view.bucket, "o1", { ticked: () => rounds.count++ });
    // The first round reads every record; later ones only while the watch lags.
    await eventually(() => expect(rounds.count).toBeGreaterThanOrEqual(2), 10_000);
    const from = { ...view.state, rounds: rounds.count };
    await eventually(() => expect(rounds.count - from.rounds).toBeGreaterThanOrEqual(5), 20_000);
    const counted = rounds.count - from.rounds;
    // Reading each round, as rounds did, is a listing and three gets per round. A round whose own
    // heartbeat the watch delivered late (this machine is shared) may still read: fewer than half may.
    expect(view.state.listings - from.listings).toBeLessThan(counted / 2);
    expect(view.state.gets - from.gets).toBeLessThan((3 * counted) / 2);
    for (const peer of peers)
      expect(observer.ownerState({ node: peer, incarnation: `${peer}.1` })).toBe("live");
  });

  it("notice a peer's death while the observer's watch is silent, and keep the live peer live", async () => {
    const dying = await started(await nodesBucket("nodes-silent"), "p1");
    await started(await nodesBucket("nodes-silent"), "p2");
    const view = silenceableWatch(await nodesBucket("nodes-silent"));
    const dead: string[] = [];
    const observer = await started(view.bucket, "o1", { peerDead: (peer) => dead.push(peer.node) });
    await eventually(
      () => expect(observer.ownerState({ node: "p1", incarnation: "p1.1" })).toBe("live"),
      10_000,
    );
    view.state.silent = true;
    const gets = view.state.gets;
    // A kill -9: no more heartbeats, no tombstone of its own.
    dying.stop();
    await eventually(() => expect(dead).toEqual(["p1"]), 20_000);
    expect(observer.ownerState({ node: "p1", incarnation: "p1.1" })).toBe("dead");
    expect(observer.ownerState({ node: "p2", incarnation: "p2.1" })).toBe("live");
    // It was the rounds' reads, not the silent watch, that saw it.
    expect(view.state.gets).toBeGreaterThan(gets);
  });
});
