import { afterEach, describe, expect, it } from "vitest";
import { isExists, isUnavailable, isWrongRevision } from "../../fleet/index.ts";
import type { KvBucket, KvEntry, KvStore } from "../../fleet/index.ts";
import { bytes, text, waitFor } from "./wait-for.ts";

/**
 * The rules every KvStore must keep (fleet/kv.ts). `makeStore` opens a fresh connection; buckets are
 * named uniquely per test, so a store that outlives one test (a nats-server) needs no cleanup.
 */
export function describeKvContract(name: string, makeStore: () => Promise<KvStore>): void {
  describe(`KvStore contract: ${name}`, () => {
    const opened: KvStore[] = [];
    let bucketCount = 0;

    /** A bucket name no earlier run used either, since a nats-server may outlive a run. */
    function uniqueBucketName(tag: string): string {
      bucketCount += 1;
      return `contract_${tag}_${Date.now().toString(36)}_${bucketCount}`;
    }

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    async function open(): Promise<KvStore> {
      const store = await makeStore();
      opened.push(store);
      return store;
    }

    async function freshBucket(history?: number): Promise<KvBucket> {
      const store = await open();
      return store.bucket(uniqueBucketName("t"), history === undefined ? {} : { history });
    }

    function watchInto(
      bucket: KvBucket,
      opts: { prefix?: string; fromRevision?: number },
    ): { seen: KvEntry[]; stop: () => void } {
      const seen: KvEntry[] = [];
      const watch = bucket.watch(opts, (entry) => seen.push(entry));
      return {
        seen,
        stop: () => {
          watch.stop();
        },
      };
    }

    const summary = (entries: readonly KvEntry[]): string[] =>
      entries.map((e) => `${e.operation} ${e.key}${e.operation === "PUT" ? `=${text(e.value)}` : ""}`);

    it("get of a missing key is null", async () => {
      const bucket = await freshBucket();
      expect(await bucket.get("lobby/NOPE01")).toBeNull();
    });

    it("create stores a value and returns its revision", async () => {
      const bucket = await freshBucket();
      const revision = await bucket.create("lobby/ABC123", bytes("one"));
      const entry = await bucket.get("lobby/ABC123");
      expect(entry).toMatchObject({ key: "lobby/ABC123", revision, operation: "PUT" });
      expect(text(entry!.value)).toBe("one");
    });

    it("create has exactly one winner among 20 concurrent racers", async () => {
      const bucket = await freshBucket();
      const racers = Array.from({ length: 20 }, (_, i) => bucket.create("lobby/RACE01", bytes(`racer ${i}`)));
      const outcomes = await Promise.allSettled(racers);
      const won = outcomes.flatMap((o, i) => (o.status === "fulfilled" ? [i] : []));
      const lost = outcomes.flatMap((o): unknown[] => (o.status === "rejected" ? [o.reason] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(19);
      expect(lost.every((reason) => isExists(reason))).toBe(true);
      expect(text((await bucket.get("lobby/RACE01"))!.value)).toBe(`racer ${won[0]}`);
    });

    it("create fails with exists on a live key and works again after delete", async () => {
      const bucket = await freshBucket();
      const first = await bucket.create("player/p-1", bytes("a"));
      await expect(bucket.create("player/p-1", bytes("b"))).rejects.toSatisfy(isExists);
      await bucket.delete("player/p-1");
      const again = await bucket.create("player/p-1", bytes("c"));
      expect(again).toBeGreaterThan(first);
      expect(text((await bucket.get("player/p-1"))!.value)).toBe("c");
    });

    it("update is compare-and-set on the latest revision", async () => {
      const bucket = await freshBucket();
      const r1 = await bucket.create("lobby/CAS001", bytes("v1"));
      const r2 = await bucket.update("lobby/CAS001", bytes("v2"), r1);
      expect(r2).toBeGreaterThan(r1);
      await expect(bucket.update("lobby/CAS001", bytes("stale"), r1)).rejects.toSatisfy(isWrongRevision);
      expect(await bucket.get("lobby/CAS001")).toMatchObject({ revision: r2 });
      expect(text((await bucket.get("lobby/CAS001"))!.value)).toBe("v2");
    });

    it("update of a missing key fails with wrong-revision", async () => {
      const bucket = await freshBucket();
      await expect(bucket.update("lobby/NOPE02", bytes("x"), 1)).rejects.toSatisfy(isWrongRevision);
      expect(await bucket.get("lobby/NOPE02")).toBeNull();
    });

    it("concurrent updates from one revision have exactly one winner", async () => {
      const bucket = await freshBucket();
      const base = await bucket.create("lobby/CAS002", bytes("base"));
      const racers = Array.from({ length: 12 }, (_, i) =>
        bucket.update("lobby/CAS002", bytes(`u${i}`), base),
      );
      const outcomes = await Promise.allSettled(racers);
      expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(1);
      expect(outcomes.filter((o) => o.status === "rejected" && isWrongRevision(o.reason))).toHaveLength(11);
    });

    it("put writes unconditionally and returns the new revision", async () => {
      const bucket = await freshBucket();
      const r1 = await bucket.put("queue/ranked-duel", bytes("1"));
      const r2 = await bucket.put("queue/ranked-duel", bytes("2"));
      expect(r2).toBeGreaterThan(r1);
      expect(await bucket.get("queue/ranked-duel")).toMatchObject({ revision: r2, operation: "PUT" });
    });

    it("delete with an expected revision is compare-and-set", async () => {
      const bucket = await freshBucket();
      const r1 = await bucket.create("room/QWERTY", bytes("v1"));
      const r2 = await bucket.update("room/QWERTY", bytes("v2"), r1);
      await expect(bucket.delete("room/QWERTY", { expectedRevision: r1 })).rejects.toSatisfy(isWrongRevision);
      expect(await bucket.get("room/QWERTY")).toMatchObject({ revision: r2 });
      await bucket.delete("room/QWERTY", { expectedRevision: r2 });
      expect(await bucket.get("room/QWERTY")).toBeNull();
    });

    it("revisions increase across keys: one sequence per bucket", async () => {
      const bucket = await freshBucket();
      const a1 = await bucket.create("k/a", bytes("a"));
      const b1 = await bucket.create("k/b", bytes("b"));
      const a2 = await bucket.update("k/a", bytes("a2"), a1);
      const c1 = await bucket.put("k/c", bytes("c"));
      expect([a1, b1, a2, c1]).toEqual([...[a1, b1, a2, c1]].sort((x, y) => x - y));
      expect(new Set([a1, b1, a2, c1]).size).toBe(4);
      await expect(bucket.update("k/b", bytes("x"), a2)).rejects.toSatisfy(isWrongRevision);
    });

    it("keys lists live keys, optionally by prefix", async () => {
      const bucket = await freshBucket();
      await bucket.put("lobby/AAA111", bytes("1"));
      await bucket.put("lobby/BBB222", bytes("2"));
      await bucket.put("player/p-1", bytes("3"));
      await bucket.put("lobby/CCC333", bytes("4"));
      await bucket.delete("lobby/CCC333");
      expect((await bucket.keys("lobby/")).sort()).toEqual(["lobby/AAA111", "lobby/BBB222"]);
      expect((await bucket.keys()).sort()).toEqual(["lobby/AAA111", "lobby/BBB222", "player/p-1"]);
      expect(await bucket.keys("nothing/")).toEqual([]);
    });

    it("accepts NATS KV keys and rejects bad ones with TypeError", async () => {
      const bucket = await freshBucket();
      for (const key of ["lobby/ABC123", "player/p-1", "a=b_c.d-e", "activity/x.y", "Z9"]) {
        await bucket.put(key, bytes("ok"));
      }
      for (const key of ["", "a b", "lobby/*", "lobby/>", "a*b", ".a", "a.", "a..b", "tab\there"]) {
        await expect(bucket.put(key, bytes("bad")), key).rejects.toBeInstanceOf(TypeError);
        await expect(bucket.get(key), key).rejects.toBeInstanceOf(TypeError);
      }
      expect(() => bucket.watch({ prefix: "a b" }, () => undefined)).toThrow(TypeError);
    });

    it("watch delivers the existing entries, then live writes and deletes, in revision order", async () => {
      const bucket = await freshBucket();
      const a1 = await bucket.put("w/a", bytes("a1"));
      await bucket.put("w/b", bytes("b1"));
      await bucket.update("w/a", bytes("a2"), a1);
      const watch = watchInto(bucket, {});
      await waitFor("the existing entries", () => watch.seen.length === 2);
      await bucket.delete("w/b");
      await bucket.put("w/c", bytes("c1"));
      await waitFor("the live entries", () => watch.seen.length === 4);
      watch.stop();
      expect(summary(watch.seen)).toEqual(["PUT w/b=b1", "PUT w/a=a2", "DEL w/b", "PUT w/c=c1"]);
      const revisions = watch.seen.map((e) => e.revision);
      expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
    });

    it("watch filters by key prefix", async () => {
      const bucket = await freshBucket();
      await bucket.put("lobby/AAA111", bytes("1"));
      await bucket.put("player/p-1", bytes("2"));
      const watch = watchInto(bucket, { prefix: "lobby/" });
      await bucket.put("player/p-2", bytes("3"));
      await bucket.put("lobby/BBB222", bytes("4"));
      await waitFor("two lobby entries", () => watch.seen.length >= 2);
      watch.stop();
      expect(summary(watch.seen)).toEqual(["PUT lobby/AAA111=1", "PUT lobby/BBB222=4"]);
    });

    it("watch from a revision resumes where an earlier watch stopped", async () => {
      const bucket = await freshBucket();
      await bucket.put("r/a", bytes("1"));
      await bucket.put("r/b", bytes("2"));
      const first = watchInto(bucket, {});
      await waitFor("the first entries", () => first.seen.length === 2);
      first.stop();
      const lastSeen = first.seen.at(-1)!.revision;
      await bucket.put("r/c", bytes("3"));
      await bucket.delete("r/a");
      const resumed = watchInto(bucket, { fromRevision: lastSeen + 1 });
      await bucket.put("r/d", bytes("4"));
      await waitFor("the resumed entries", () => resumed.seen.length === 3);
      resumed.stop();
      expect(summary(resumed.seen)).toEqual(["PUT r/c=3", "DEL r/a", "PUT r/d=4"]);
      expect(summary(first.seen)).toEqual(["PUT r/a=1", "PUT r/b=2"]);
    });

    it("watch from a revision delivers the history the bucket keeps", async () => {
      const bucket = await freshBucket(3);
      const r1 = await bucket.put("h/a", bytes("1"));
      await bucket.put("h/a", bytes("2"));
      await bucket.put("h/a", bytes("3"));
      const watch = watchInto(bucket, { fromRevision: r1 });
      await waitFor("three versions", () => watch.seen.length === 3);
      watch.stop();
      expect(summary(watch.seen)).toEqual(["PUT h/a=1", "PUT h/a=2", "PUT h/a=3"]);
    });

    it("a stopped watch delivers nothing more", async () => {
      const bucket = await freshBucket();
      const stopped = watchInto(bucket, { prefix: "s/" });
      const running = watchInto(bucket, { prefix: "s/" });
      await bucket.put("s/a", bytes("1"));
      await waitFor("the first entry", () => stopped.seen.length === 1 && running.seen.length === 1);
      stopped.stop();
      await bucket.put("s/b", bytes("2"));
      await waitFor("the running watch", () => running.seen.length === 2);
      running.stop();
      expect(stopped.seen).toHaveLength(1);
    });

    it("copies values on the way in and out", async () => {
      const bucket = await freshBucket();
      const input = bytes("original");
      await bucket.create("c/a", input);
      input.fill(0);
      const read = await bucket.get("c/a");
      expect(text(read!.value)).toBe("original");
      read!.value.fill(0);
      expect(text((await bucket.get("c/a"))!.value)).toBe("original");
      const watch = watchInto(bucket, { prefix: "c/" });
      await waitFor("the watched entry", () => watch.seen.length === 1);
      watch.stop();
      watch.seen[0]!.value.fill(0);
      expect(text((await bucket.get("c/a"))!.value)).toBe("original");
    });

    it("opening a bucket twice gives the same data", async () => {
      const store = await open();
      const bucketName = uniqueBucketName("twice");
      const one = await store.bucket(bucketName);
      const two = await store.bucket(bucketName);
      const revision = await one.put("t/a", bytes("shared"));
      expect(await two.get("t/a")).toMatchObject({ revision });
      expect(two.name).toBe(bucketName);
    });

    it("operations after close fail with unavailable", async () => {
      const store = await open();
      const bucket = await store.bucket(uniqueBucketName("closed"));
      await store.close();
      await expect(bucket.get("x/a")).rejects.toSatisfy(isUnavailable);
      await expect(bucket.put("x/a", bytes("1"))).rejects.toSatisfy(isUnavailable);
    });
  });
}
