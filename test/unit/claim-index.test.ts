import { describe, expect, it } from "vitest";
import { ManualScheduler, settle } from "../../actors/runtime/index.ts";
import { type KvBucket, MemoryKvServer } from "../../fleet/index.ts";
import { ClaimIndex } from "../../fleet/protocol/index.ts";

const owner = { node: "n2", incarnation: "n2.1" };

describe("ClaimIndex.record", () => {
  it("resolves only once a refused entry landed on a retry: the claim write waits for it", async () => {
    const bucket = await new MemoryKvServer().connect().bucket("claim-owners");
    let refusals = 1;
    const refusing: KvBucket = {
      name: bucket.name,
      get: (key) => bucket.get(key),
      create: (key, value) => bucket.create(key, value),
      update: (key, value, expected) => bucket.update(key, value, expected),
      put: (key, value) => (refusals-- > 0 ? Promise.reject(new Error("refused")) : bucket.put(key, value)),
      delete: (key, opts) => bucket.delete(key, opts),
      keys: (prefix) => bucket.keys(prefix),
      watch: (opts, onEntry) => bucket.watch(opts, onEntry),
    };
    const scheduler = new ManualScheduler();
    const index = new ClaimIndex(refusing, scheduler);
    let recorded = false;
    void index.record(owner, "counter/K1").then(() => {
      recorded = true;
    });
    await settle();
    // A claim acknowledged now would have no entry if its owner died before the retry.
    expect(recorded).toBe(false);
    await scheduler.advance(200);
    await settle();
    expect(recorded).toBe(true);
    expect(await index.listNode("n2")).toEqual([{ key: "counter/K1", owner }]);
  });
});
