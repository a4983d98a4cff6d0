import { describe, expect, it } from "vitest";
import {
  KvActorStore,
  KvError,
  MemoryKvServer,
  ShardedKvBucket,
  SnapshotLayoutError,
  defaultSnapshotShards,
  fleetSnapshotShards,
  isWrongRevision,
  layoutKey,
  openSnapshotBucket,
  realScheduler,
  shardBucketNames,
  shardOf,
  type KvBucket,
  type KvEntry,
  type KvStore,
} from "../../fleet/index.ts";
import type { Snapshot } from "../../actors/runtime/index.ts";

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (value: Uint8Array): string => new TextDecoder().decode(value);

async function shardsOf(kv: KvStore, count: number) {
  const names = shardBucketNames("lobbies", count);
  const buckets = await Promise.all(names.map((name) => kv.bucket(name)));
  return { buckets, sharded: new ShardedKvBucket("lobbies", buckets) };
}

describe("snapshot buckets sharded by key hash", () => {
  it("names one bucket as the unsharded layout and several as lobbies-00 …", () => {
    expect(shardBucketNames("lobbies", 1)).toEqual(["lobbies"]);
    expect(shardBucketNames("lobbies", 4)).toEqual(["lobbies-00", "lobbies-01", "lobbies-02", "lobbies-03"]);
    expect(() => shardBucketNames("lobbies", 0)).toThrow(TypeError);
    expect(() => shardBucketNames("lobbies", 101)).toThrow(TypeError);
  });

  it("hashes a key to the same shard on every node and release (FNV-1a, fixed)", () => {
    // Pinned: a change of the hash would move every stored snapshot out of its nodes' sight.
    // 0xe40c292c is FNV-1a's published 32-bit value of "a".
    expect(shardOf("a", 2 ** 32)).toBe(0xe40c292c);
    expect(shardOf("lobby/ABC123", 2 ** 32)).toBe(2959532228);
    expect([shardOf("lobby/ABC123", 4), shardOf("player/alice", 4), shardOf("a", 1000)]).toEqual([0, 3, 220]);
  });

  it("spreads lobby codes evenly: no shard takes more than 1.25 × its share", () => {
    const counts = new Array<number>(defaultSnapshotShards).fill(0);
    const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    for (let i = 0; i < 4000; i++) {
      let code = "";
      for (let n = i * 7919, d = 0; d < 6; d++, n = Math.floor(n / alphabet.length))
        code += alphabet.charAt(n % alphabet.length);
      counts[shardOf(`lobby/${code}`, defaultSnapshotShards)]! += 1;
    }
    const share = 4000 / defaultSnapshotShards;
    expect(Math.max(...counts) / share).toBeLessThan(1.25);
    expect(Math.min(...counts) / share).toBeGreaterThan(0.75);
  });

  it("puts each key's writes in its own shard and keeps compare-and-set per key", async () => {
    const kv = new MemoryKvServer().connect();
    const { buckets, sharded } = await shardsOf(kv, 4);
    const keys = Array.from({ length: 40 }, (_, i) => `lobby/K${i}`);
    const revisions = new Map<string, number>();
    for (const key of keys) revisions.set(key, await sharded.create(key, bytes(key)));
    for (const key of keys) {
      const home = buckets[shardOf(key, 4)]!;
      expect(text((await home.get(key))!.value)).toBe(key);
      for (const other of buckets.filter((b) => b !== home)) expect(await other.get(key)).toBeNull();
    }
    const [first] = keys as [string];
    const next = await sharded.update(first, bytes("next"), revisions.get(first)!);
    await expect(sharded.update(first, bytes("stale"), revisions.get(first)!)).rejects.toSatisfy(
      isWrongRevision,
    );
    await sharded.delete(first, { expectedRevision: next });
    expect(await sharded.get(first)).toBeNull();
    expect((await sharded.keys("lobby/")).sort()).toEqual(keys.slice(1).sort());
  });

  it("watches every shard, and refuses to resume from a revision (revisions are per shard)", async () => {
    const kv = new MemoryKvServer().connect();
    const { sharded } = await shardsOf(kv, 3);
    const seen: KvEntry[] = [];
    const watch = sharded.watch({}, (entry) => seen.push(entry));
    const keys = ["lobby/A", "lobby/B", "lobby/C", "lobby/D", "lobby/E", "lobby/F"];
    for (const key of keys) await sharded.put(key, bytes(key));
    await expect.poll(() => seen.length).toBe(keys.length);
    watch.stop();
    expect(seen.map((e) => e.key).sort()).toEqual(keys);
    expect(() => sharded.watch({ fromRevision: 1 }, () => undefined)).toThrow(TypeError);
  });

  it("lets the actor store create, take over and fence snapshots through it unchanged", async () => {
    const kv = new MemoryKvServer().connect();
    const claims = await kv.bucket("claims");
    const snapshots = await ShardedKvBucket.open(kv, "lobbies", 4);
    const storeOf = (node: string) =>
      new KvActorStore({
        claims,
        snapshots,
        identity: { node, incarnation: `${node}-1` },
        scheduler: realScheduler(),
      });
    const [a, b] = [storeOf("a"), storeOf("b")];
    const keys = ["lobby/ABC123", "lobby/XYZ789", "lobby/QQQ222", "lobby/MMM555"];
    expect(new Set(keys.map((key) => shardOf(key, 4))).size).toBeGreaterThan(1);
    for (const key of keys) {
      const { epoch, revision } = await a.create(key, (e) => snapshotOf(key, e, "w0"));
      const mine = await a.write(key, snapshotOf(key, epoch, "w1", 1), revision);
      const claim = (await claims.get(key))!;
      const taken = await b.takeOver(key, claim.revision);
      expect(taken.outcome).toBe("taken");
      expect((await b.read(key))?.snapshot.writeId).not.toBe("w0");
      // The old owner's next write, on the revision it last wrote: the seal moved it, and names a newer epoch.
      await expect(a.write(key, snapshotOf(key, epoch, "late", 2), mine)).rejects.toMatchObject({
        name: "PersistError",
        failure: "fenced",
      });
    }
  });
});

function snapshotOf(key: string, epoch: number, writeId: string, seq = 0): Snapshot {
  return {
    format: 1,
    kind: "lobby",
    schemaVersion: 1,
    key,
    epoch,
    seq,
    writeId,
    state: {},
    timers: [],
    results: [],
  };
}

describe("the fleet's snapshot layout", () => {
  async function fleetBuckets(kv: KvStore) {
    return { claims: await kv.bucket("claims"), nodes: await kv.bucket("nodes") };
  }

  it("is fixed by the first node, and a node asking another count refuses to join with the reason", async () => {
    const kv = new MemoryKvServer().connect();
    const { claims, nodes } = await fleetBuckets(kv);
    expect(await fleetSnapshotShards(claims, nodes, 6)).toBe(6);
    expect(await fleetSnapshotShards(claims, nodes, undefined)).toBe(6);
    expect(await fleetSnapshotShards(claims, nodes, 6)).toBe(6);
    const refused = fleetSnapshotShards(claims, nodes, 4);
    await expect(refused).rejects.toBeInstanceOf(SnapshotLayoutError);
    await expect(refused).rejects.toThrow(/over 6 bucket\(s\).*--snapshot-shards 4.*--snapshot-shards 6/);
  });

  it("defaults to four buckets for a new fleet, and to the one bucket for a fleet made before the record", async () => {
    const fresh = new MemoryKvServer().connect();
    const made = await fleetBuckets(fresh);
    expect(await fleetSnapshotShards(made.claims, made.nodes, undefined)).toBe(defaultSnapshotShards);
    const older = new MemoryKvServer().connect();
    const old = await fleetBuckets(older);
    await old.nodes.put("n1", bytes("{}")); // a heartbeat left by a node of a release before the record
    expect(await fleetSnapshotShards(old.claims, old.nodes, undefined)).toBe(1);
    await expect(fleetSnapshotShards(old.claims, old.nodes, 4)).rejects.toBeInstanceOf(SnapshotLayoutError);
  });

  it("settles a race of first nodes asking different counts on one layout", async () => {
    const server = new MemoryKvServer();
    const asks = [2, 3, 4, 5];
    const outcomes = await Promise.allSettled(
      asks.map(async (ask) => {
        const { claims, nodes } = await fleetBuckets(server.connect());
        return fleetSnapshotShards(claims, nodes, ask);
      }),
    );
    const won = outcomes.filter((o): o is PromiseFulfilledResult<number> => o.status === "fulfilled");
    expect(won).toHaveLength(1);
    const { claims } = await fleetBuckets(server.connect());
    expect(JSON.parse(text((await claims.get(layoutKey))!.value))).toEqual({
      snapshotShards: won[0]!.value,
    });
  });

  it("keeps asking while a new bucket's stream does not answer yet (its first calls time out)", async () => {
    const kv = new MemoryKvServer().connect();
    const { claims, nodes } = await fleetBuckets(kv);
    let timeouts = 2;
    const slow: KvBucket = {
      name: claims.name,
      get: (key) => {
        if (timeouts-- > 0) return Promise.reject(new KvError("timeout", "no answer in time"));
        return claims.get(key);
      },
      create: (key, value) => claims.create(key, value),
      update: (key, value, revision) => claims.update(key, value, revision),
      put: (key, value) => claims.put(key, value),
      delete: (key, opts) => claims.delete(key, opts),
      keys: (prefix) => claims.keys(prefix),
      watch: (opts, onEntry) => claims.watch(opts, onEntry),
    };
    expect(await fleetSnapshotShards(slow, nodes, 5)).toBe(5);
    expect(timeouts).toBeLessThan(0);
  });

  it("opens the recorded layout's buckets as one", async () => {
    const kv = new MemoryKvServer().connect();
    const { claims, nodes } = await fleetBuckets(kv);
    const snapshots = await openSnapshotBucket(kv, claims, nodes, 3);
    await snapshots.put("lobby/ABC123", bytes("x"));
    const home = await kv.bucket(shardBucketNames("lobbies", 3)[shardOf("lobby/ABC123", 3)]!);
    expect(text((await home.get("lobby/ABC123"))!.value)).toBe("x");
    expect((await openSnapshotBucket(kv, claims, nodes)).name).toBe("lobbies");
  });
});
