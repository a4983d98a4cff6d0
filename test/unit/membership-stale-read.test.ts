import { describe, expect, it } from "vitest";
import { ManualScheduler, settle } from "../../actors/runtime/index.ts";
import { MemoryKvServer, encodeNodeRecord, type KvBucket, type KvEntry } from "../../fleet/index.ts";
import { member } from "./support/membership.ts";

/** `nodes`, whose reads of `key` — while held — answer only at `release`, with what they read when asked. */
function holdingReads(nodes: KvBucket, key: string) {
  const held: (() => void)[] = [];
  let holding = false;
  const bucket: KvBucket = {
    name: nodes.name,
    get: async (k) => {
      const entry = await nodes.get(k);
      if (k !== key || !holding) return entry;
      return new Promise<KvEntry | null>((resolve) => held.push(() => resolve(entry)));
    },
    create: (k, v) => nodes.create(k, v),
    update: (k, v, r) => nodes.update(k, v, r),
    put: (k, v) => nodes.put(k, v),
    delete: (k, o) => nodes.delete(k, o),
    keys: (p) => nodes.keys(p),
    watch: (o, onEntry) => nodes.watch(o, onEntry),
  };
  return {
    bucket,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
  };
}

describe("Membership: a round's read that answers after a newer record", () => {
  it("keeps the newer record: a heartbeat read before the tombstone does not bring the dead peer back", async () => {
    // Found by the fleet simulation once it ran FleetNode, with its nodes watch (seed 203 of the CI
    // worlds): a round's read of n4 answered after the watch had delivered n4's tombstone, and the old
    // heartbeat replaced it; n4's next incarnation, not read yet, then looked like one replaced (dead),
    // and a live node's key was taken over while that node still acknowledged on it.
    const scheduler = new ManualScheduler();
    const nodes = await new MemoryKvServer().connect().bucket("nodes");
    await member(nodes, "n1", "a1", scheduler).join();
    const reads = holdingReads(nodes, "n1");
    const observer = member(reads.bucket, "n2", "b1", scheduler);
    await observer.join();
    observer.start();
    await observer.tick();
    expect(observer.ownerState({ node: "n1", incarnation: "a1" })).toBe("live");
    // A round reads n1's heartbeat, and the read answers late…
    reads.hold();
    const round = observer.tick();
    await settle();
    // …after another observer tombstoned n1, which the watch delivered first.
    const record = (await nodes.get("n1"))!;
    await nodes.update("n1", encodeNodeRecord({ dead: true, incarnation: "a1", by: "n9" }), record.revision);
    await settle();
    expect(observer.ownerState({ node: "n1", incarnation: "a1" })).toBe("dead");
    reads.release();
    await round;
    expect(observer.ownerState({ node: "n1", incarnation: "a1" })).toBe("dead");
    // n1's next incarnation, not read yet, is nobody's to take.
    expect(observer.ownerState({ node: "n1", incarnation: "a2" })).toBe("unknown");
    observer.stop();
  });
});
