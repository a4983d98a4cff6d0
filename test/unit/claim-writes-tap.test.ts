import { describe, expect, it } from "vitest";
import { ManualScheduler } from "../../actors/runtime/index.ts";
import { type KvBucket, MemoryKvServer } from "../../fleet/index.ts";
import {
  ClaimIndex,
  type ClaimView,
  OwnClaims,
  claimWritesTap,
  encodeClaim,
} from "../../fleet/protocol/index.ts";

/**
 * A node n4 whose claims go through the tap, with its claim index beside them. Each claim write waits
 * until `dropEntries` removed every index entry: a survivor read the key unclaimed meanwhile and dropped
 * the entry its owner sent beside the claim.
 */
async function setup() {
  const kv = new MemoryKvServer().connect();
  const entries = await kv.bucket("claim-owners");
  const index = new ClaimIndex(entries, new ManualScheduler());
  const identity = { node: "n4", incarnation: "n4.1" };
  const late: ClaimView[] = [];
  const bucket = await kv.bucket("claims");
  const dropEntries = async (): Promise<void> => {
    for (const key of await entries.keys("")) await entries.delete(key);
  };
  const slow: KvBucket = {
    name: bucket.name,
    get: (key) => bucket.get(key),
    create: async (key, value) => {
      await dropEntries();
      return bucket.create(key, value);
    },
    update: (key, value, expected) => bucket.update(key, value, expected),
    put: (key, value) => bucket.put(key, value),
    delete: (key, opts) => bucket.delete(key, opts),
    keys: (prefix) => bucket.keys(prefix),
    watch: (opts, onEntry) => bucket.watch(opts, onEntry),
  };
  const claims = claimWritesTap(slow, new OwnClaims(identity), index, (claim) => {
    late.push(claim);
  });
  return { index, identity, claims, late };
}

describe("claimWritesTap", () => {
  it("sends the entry of a claim of this process beside it, once, and hands nothing over", async () => {
    const { index, identity, claims, late } = await setup();
    await claims.create("player/P1", encodeClaim(identity));
    // The entry sent beside the claim was dropped while the claim was on its way: not sent again.
    expect(await index.listNode("n4")).toEqual([]);
    expect(late).toEqual([]);
  });

  it("indexes again, once landed, a claim encoded before a fence and written after it, and hands it over", async () => {
    const { index, identity, claims, late } = await setup();
    const before = encodeClaim(identity);
    identity.incarnation = "n4.5"; // fenced: the process rejoins as a new incarnation in place
    const revision = await claims.create("player/P1", before);
    const old = { node: "n4", incarnation: "n4.1" };
    expect(await index.listNode("n4")).toEqual([{ key: "player/P1", owner: old }]);
    expect(late).toEqual([{ key: "player/P1", owner: old, revision }]);
  });
});
