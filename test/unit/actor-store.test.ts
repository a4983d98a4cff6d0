import { describe, expect, it } from "vitest";
import { pack, unpack } from "msgpackr";
import {
  PersistError,
  type Scheduler,
  type Snapshot,
  type SnapshotResult,
} from "../../actors/runtime/index.ts";
import {
  CorruptValueError,
  KvActorStore,
  KvError,
  MemoryKvServer,
  decodeClaim,
  decodeSnapshot,
  encodeClaim,
  encodeSnapshot,
  reusePackedResultsFrom,
  snapshotSchema,
} from "../../fleet/index.ts";
import type { KvBucket, NodeIdentity } from "../../fleet/index.ts";

const key = "lobby/ABC123";
const nodeA: NodeIdentity = { node: "n1", incarnation: "i-a" };
const nodeB: NodeIdentity = { node: "n2", incarnation: "i-b" };
/** The claim of nodeA as nodeA's store reads it. */
const ownerA = { ...nodeA, mine: true };

/** Read-backs wait on this: no real time passes, each wait is one microtask. */
const instantScheduler: Scheduler = {
  now: () => 0,
  at(_at, fn) {
    queueMicrotask(fn);
    return () => undefined;
  },
};

function snapshot(epoch: number, writeId: string, state: unknown = {}, seq = 0): Snapshot {
  return {
    format: 1,
    kind: "lobby",
    schemaVersion: 1,
    key,
    epoch,
    seq,
    writeId,
    state,
    timers: [],
    results: [],
  };
}

/** The same bucket with some operations replaced, to inject store faults. */
function withFaults(
  inner: KvBucket,
  faults: Partial<Pick<KvBucket, "get" | "create" | "update" | "delete">>,
): KvBucket {
  return {
    name: inner.name,
    get: faults.get ?? ((k) => inner.get(k)),
    create: faults.create ?? ((k, v) => inner.create(k, v)),
    update: faults.update ?? ((k, v, r) => inner.update(k, v, r)),
    put: (k, v) => inner.put(k, v),
    delete: faults.delete ?? ((k, o) => inner.delete(k, o)),
    keys: (p) => inner.keys(p),
    watch: (o, f) => inner.watch(o, f),
  };
}

async function setup() {
  const kv = new MemoryKvServer().connect();
  const claims = await kv.bucket("claims");
  const snapshots = await kv.bucket("lobbies");
  const storeOf = (identity: NodeIdentity, buckets: { claims?: KvBucket; snapshots?: KvBucket } = {}) =>
    new KvActorStore({
      claims: buckets.claims ?? claims,
      snapshots: buckets.snapshots ?? snapshots,
      identity,
      scheduler: instantScheduler,
      readBack: { attempts: 3, delayMs: 10 },
    });
  return { claims, snapshots, storeOf, a: storeOf(nodeA), b: storeOf(nodeB) };
}

function setupStore(identity: NodeIdentity, claims: KvBucket, snapshots: KvBucket): KvActorStore {
  return new KvActorStore({
    claims,
    snapshots,
    identity,
    scheduler: instantScheduler,
    readBack: { attempts: 3, delayMs: 10 },
  });
}

/** Matches a PersistError with this failure, in `rejects.toEqual`. */
const failure = (kind: PersistError["failure"]): unknown =>
  expect.objectContaining({ name: "PersistError", failure: kind });

describe("KvActorStore", () => {
  it("create claims the key; the claim's revision is the epoch the first snapshot carries", async () => {
    const { a, claims, snapshots } = await setup();
    const { epoch, revision } = await a.create(key, (e) => snapshot(e, "w0"));
    const claim = (await claims.get(key))!;
    expect(epoch).toBe(claim.revision);
    expect(decodeClaim(claim.value)).toEqual(nodeA);
    const stored = (await snapshots.get(key))!;
    expect(stored.revision).toBe(revision);
    expect(decodeSnapshot(stored.value)).toEqual(snapshot(epoch, "w0"));
    expect(await a.read(key)).toEqual({ snapshot: snapshot(epoch, "w0"), revision, epoch, owner: ownerA });
  });

  it("a snapshot's spawns in flight are kept through the store, and a snapshot without them has none", async () => {
    const { a } = await setup();
    const { epoch, revision } = await a.create(key, (e) => snapshot(e, "w0"));
    const spawning = [
      { key: "room/QWERTY", init: { code: "QWERTY", lobby: key } },
      { key: "room/ASDFGH", init: { code: "ASDFGH" }, node: "n2" },
    ];
    const next = await a.write(key, { ...snapshot(epoch, "w1"), spawning }, revision);
    expect((await a.read(key))?.snapshot.spawning).toEqual(spawning);
    await a.write(key, snapshot(epoch, "w2"), next);
    expect((await a.read(key))?.snapshot).not.toHaveProperty("spawning");
  });

  it("read of a key nobody created is null", async () => {
    const { a } = await setup();
    expect(await a.read("lobby/NONE00")).toBeNull();
  });

  it("reads tell whose claim a key is: this process's, or the node that won the create", async () => {
    const { a, b } = await setup();
    await a.create(key, (epoch) => snapshot(epoch, "w0"));
    expect((await a.read(key))?.owner).toEqual(ownerA);
    expect((await b.read(key))?.owner).toEqual({ ...nodeA, mine: false });
    await expect(b.create(key, (epoch) => snapshot(epoch, "w1"))).rejects.toEqual(
      expect.objectContaining({ failure: "exists", owner: { ...nodeA, mine: false } }),
    );
  });

  it("a second create of a claimed key fails with exists and leaves the first untouched", async () => {
    const { a, b } = await setup();
    const first = await a.create(key, (e) => snapshot(e, "w0", { host: "p1" }));
    let called = false;
    const initial = (e: number): Snapshot => {
      called = true;
      return snapshot(e, "other");
    };
    await expect(b.create(key, initial)).rejects.toEqual(failure("exists"));
    await expect(a.create(key, initial)).rejects.toEqual(failure("exists"));
    expect(called).toBe(false);
    expect(await a.read(key)).toMatchObject({ revision: first.revision, snapshot: { writeId: "w0" } });
  });

  it("writes chain by compare-and-set on the previous revision", async () => {
    const { a } = await setup();
    const { epoch, revision: r0 } = await a.create(key, (e) => snapshot(e, "w0"));
    const r1 = await a.write(key, snapshot(epoch, "w1", { n: 1 }, 1), r0);
    const r2 = await a.write(key, snapshot(epoch, "w2", { n: 2 }, 2), r1);
    expect(r2).toBeGreaterThan(r1);
    expect(await a.read(key)).toEqual({
      snapshot: snapshot(epoch, "w2", { n: 2 }, 2),
      revision: r2,
      epoch,
      owner: ownerA,
    });
  });

  it("a write at our epoch whose revision our own earlier write moved is retried on the current revision", async () => {
    const { a, snapshots } = await setup();
    const { epoch, revision: r0 } = await a.create(key, (e) => snapshot(e, "w0"));
    // Our earlier write w1 landed although its caller saw a timeout; w2 carries its changes and more.
    await snapshots.update(key, encodeSnapshot(snapshot(epoch, "w1", { n: 1 }, 1)), r0);
    const r2 = await a.write(key, snapshot(epoch, "w2", { n: 2 }, 2), r0);
    expect(await a.read(key)).toEqual({
      snapshot: snapshot(epoch, "w2", { n: 2 }, 2),
      revision: r2,
      epoch,
      owner: ownerA,
    });
  });

  it("a takeover CAS-es the claim, seals under the new epoch, and fences the older owner's writes", async () => {
    const { a, b, claims } = await setup();
    const { epoch: e1, revision: r0 } = await a.create(key, (e) => snapshot(e, "w0"));
    const r1 = await a.write(key, snapshot(e1, "w1", { n: 1 }, 1), r0);
    const taken = await b.takeOver(key, e1);
    if (taken.outcome !== "taken") throw new Error(`not taken: ${taken.outcome}`);
    expect(taken.epoch).toBe((await claims.get(key))!.revision);
    expect(decodeClaim((await claims.get(key))!.value)).toEqual(nodeB);
    await expect(a.write(key, snapshot(e1, "w2", { n: 2 }, 2), r1)).rejects.toEqual(failure("fenced"));
    expect(await b.read(key)).toMatchObject({
      revision: taken.revision,
      epoch: taken.epoch,
      owner: { ...nodeB, mine: true },
      snapshot: { epoch: taken.epoch, state: { n: 1 }, seq: 1 },
    });
  });

  it("an older owner's write landing between the takeover's early snapshot read and its claim CAS is kept", async () => {
    const { a, claims, snapshots } = await setup();
    const { epoch: e1, revision: r0 } = await a.create(key, (e) => snapshot(e, "w0"));
    let snapshotRead = (): void => undefined;
    const read = new Promise<void>((resolve) => (snapshotRead = resolve));
    const b = setupStore(
      nodeB,
      withFaults(claims, {
        update: async (k, v, revision) => {
          // The takeover read the snapshot already; the dying owner's last write lands now.
          await read;
          await a.write(key, snapshot(e1, "late", { n: 7 }, 1), r0);
          return claims.update(k, v, revision);
        },
      }),
      withFaults(snapshots, {
        get: async (k) => {
          const entry = await snapshots.get(k);
          snapshotRead();
          return entry;
        },
      }),
    );
    const taken = await b.takeOver(key, e1);
    if (taken.outcome !== "taken") throw new Error(`not taken: ${taken.outcome}`);
    const stored = decodeSnapshot((await snapshots.get(key))!.value);
    expect(stored).toMatchObject({ epoch: taken.epoch, state: { n: 7 }, seq: 1 });
    expect(await b.read(key)).toMatchObject({ epoch: taken.epoch, snapshot: { state: { n: 7 } } });
  });

  it("the restore right after a takeover reads nothing: the seal it just wrote stands in, once", async () => {
    const { a, claims, snapshots } = await setup();
    const { epoch: e1, revision: r0 } = await a.create(key, (e) => snapshot(e, "w0"));
    await a.write(key, snapshot(e1, "w1", { n: 1 }, 1), r0);
    let reads = 0;
    const counted = <T>(read: () => Promise<T>): Promise<T> => {
      reads++;
      return read();
    };
    const b = setupStore(
      nodeB,
      withFaults(claims, { get: (k) => counted(() => claims.get(k)) }),
      withFaults(snapshots, { get: (k) => counted(() => snapshots.get(k)) }),
    );
    const taken = await b.takeOver(key, e1);
    if (taken.outcome !== "taken") throw new Error(`not taken: ${taken.outcome}`);
    const readsToSeal = reads;
    const restored = await b.read(key);
    expect(reads).toBe(readsToSeal);
    const fromStore = { snapshot: decodeSnapshot((await snapshots.get(key))!.value) };
    expect(restored).toEqual({
      ...fromStore,
      revision: taken.revision,
      epoch: taken.epoch,
      owner: { ...nodeB, mine: true },
    });
    // Once only: the next read asks the store again, and finds the same.
    expect(await b.read(key)).toEqual(restored);
    expect(reads).toBe(readsToSeal + 2);
  });

  it("a seal too old, or of an earlier incarnation, does not stand in for a read", async () => {
    const { a, claims, snapshots } = await setup();
    let now = 0;
    const clock: Scheduler = { now: () => now, at: (at, fn) => instantScheduler.at(at, fn) };
    const identity = { ...nodeB };
    const storeB = () =>
      new KvActorStore({
        claims,
        snapshots,
        identity,
        scheduler: clock,
        readBack: { attempts: 3, delayMs: 10 },
      });
    const { epoch: e1 } = await a.create(key, (e) => snapshot(e, "w0"));
    const b = storeB();
    const first = await b.takeOver(key, e1);
    if (first.outcome !== "taken") throw new Error(`not taken: ${first.outcome}`);
    // Taken back by A meanwhile; B's restore comes late and must see it.
    const back = await a.takeOver(key, first.epoch);
    if (back.outcome !== "taken") throw new Error(`not taken back: ${back.outcome}`);
    now = 5_000;
    expect(await b.read(key)).toMatchObject({ epoch: back.epoch, owner: { ...nodeA, mine: false } });
    // A new incarnation of B (declared dead, back empty) does not restore what its predecessor sealed.
    const again = await b.takeOver(key, back.epoch);
    if (again.outcome !== "taken") throw new Error(`not taken again: ${again.outcome}`);
    identity.incarnation = "i-b2";
    expect(await b.read(key)).toMatchObject({
      epoch: again.epoch,
      owner: { node: "n2", incarnation: "i-b", mine: false },
    });
  });

  it("a read whose claim moves before its snapshot read pairs them again: never an old epoch with a newer snapshot", async () => {
    // Found by the fleet simulation (seed 1283 of the drain sweep): a node adopting a key read its own
    // claim, then — slowly — the snapshot a takeover by another node had sealed meanwhile. The read said
    // "yours, at the old epoch" with the new owner's state: an actor live on a node that lost the key.
    const { a, b, claims, snapshots } = await setup();
    const { epoch: e1, revision: r0 } = await a.create(key, (e) => snapshot(e, "w0"));
    await a.write(key, snapshot(e1, "w1", { n: 1 }, 1), r0);
    let moved = false;
    const slowSnapshots = withFaults(snapshots, {
      get: async (k) => {
        if (!moved) {
          moved = true;
          const taken = await b.takeOver(key, e1);
          if (taken.outcome !== "taken") throw new Error(`not taken: ${taken.outcome}`);
        }
        return snapshots.get(k);
      },
    });
    const stored = await setupStore(nodeA, claims, slowSnapshots).read(key);
    const claim = (await claims.get(key))!;
    expect(stored).toMatchObject({ epoch: claim.revision, owner: { ...nodeB, mine: false } });
    expect(stored?.snapshot.epoch).toBe(claim.revision);
  });

  it("a read racing a create (claim read before it, snapshot after) reads again and names the creator", async () => {
    // Seen in CI on a 3-server cluster: two nodes created one key on demand at once; the loser's read got no
    // claim, then the winner's first snapshot, and answered "the store cannot be read now" instead of
    // sending its asks to the winner.
    const { a, claims, snapshots } = await setup();
    let created = false;
    const racingSnapshots = withFaults(snapshots, {
      get: async (k) => {
        if (!created) {
          created = true;
          await a.create(key, (e) => snapshot(e, "w0"));
        }
        return snapshots.get(k);
      },
    });
    const stored = await setupStore(nodeB, claims, racingSnapshots).read(key);
    expect(stored).toMatchObject({
      epoch: (await claims.get(key))!.revision,
      owner: { ...nodeA, mine: false },
    });
  });

  it("a snapshot with no claim, read twice, is fenced: nobody owns it", async () => {
    const { a, claims, snapshots } = await setup();
    await a.create(key, (e) => snapshot(e, "w0"));
    let reads = 0;
    const noClaims = withFaults(claims, {
      get: () => {
        reads += 1;
        return Promise.resolve(null);
      },
    });
    await expect(setupStore(nodeB, noClaims, snapshots).read(key)).rejects.toEqual(failure("fenced"));
    expect(reads).toBe(2);
  });

  it("a takeover from a claim revision that moved meanwhile is lost, and writes nothing", async () => {
    const { a, b, claims, snapshots } = await setup();
    const { epoch: e1 } = await a.create(key, (e) => snapshot(e, "w0"));
    const e2 = await claims.update(key, encodeClaim(nodeA), e1); // A re-claimed (a migration back, say)
    const before = (await snapshots.get(key))!.revision;
    expect(await b.takeOver(key, e1)).toEqual({ outcome: "lost" });
    expect((await claims.get(key))!.revision).toBe(e2);
    expect((await snapshots.get(key))!.revision).toBe(before);
  });

  it("an older owner's write squeezed in before the seal is kept: the seal reads again", async () => {
    const { a, claims, snapshots, storeOf } = await setup();
    const { epoch: e1, revision: r0 } = await a.create(key, (e) => snapshot(e, "w0"));
    let squeezed = false;
    const racing = withFaults(snapshots, {
      update: async (k, v, r) => {
        if (!squeezed) {
          squeezed = true; // A's write lands between B's read and B's seal; it may have been acknowledged
          await snapshots.update(k, encodeSnapshot(snapshot(e1, "w1", { n: 1 }, 1)), r0);
        }
        return snapshots.update(k, v, r);
      },
    });
    const b = storeOf(nodeB, { snapshots: racing });
    const taken = await b.takeOver(key, e1);
    expect(taken.outcome).toBe("taken");
    const stored = decodeSnapshot((await snapshots.get(key))!.value);
    expect(stored).toMatchObject({ state: { n: 1 }, seq: 1, epoch: (await claims.get(key))!.revision });
  });

  it("an orphaned claim (no snapshot) is freed: nothing was ever acknowledged under it", async () => {
    const { b, claims, snapshots } = await setup();
    const e1 = await claims.create(key, encodeClaim(nodeA)); // A died between claim and first snapshot
    expect(await b.takeOver(key, e1)).toEqual({ outcome: "freed" });
    expect(await claims.get(key)).toBeNull();
    expect(await b.read(key)).toBeNull(); // only the orphan's tombstone is left
    expect(decodeSnapshot((await snapshots.get(key))!.value).kind).toBe("$orphan");
    // The code is free again.
    const { epoch } = await b.create(key, (e) => snapshot(e, "new"));
    expect(epoch).toBeGreaterThan(e1);
  });

  it("an orphan whose first snapshot lands before the tombstone is taken over, not freed", async () => {
    const { claims, snapshots, storeOf } = await setup();
    const e1 = await claims.create(key, encodeClaim(nodeA));
    let landed = false;
    const late = withFaults(snapshots, {
      create: async (k, v) => {
        if (!landed) {
          landed = true; // A's first snapshot arrives just ahead of B's tombstone
          await snapshots.create(k, encodeSnapshot(snapshot(e1, "w0", { n: 7 })));
        }
        return snapshots.create(k, v);
      },
    });
    const b = storeOf(nodeB, { snapshots: late });
    expect((await b.takeOver(key, e1)).outcome).toBe("taken");
    expect(decodeSnapshot((await snapshots.get(key))!.value)).toMatchObject({ state: { n: 7 } });
  });

  it("a claim of ours left unsealed (its CAS landed after the takeover gave up) is sealed by the read that restores it", async () => {
    const { a, b, claims, snapshots } = await setup();
    const { epoch: e1, revision } = await a.create(key, (e) => snapshot(e, "w0", { n: 1 }));
    const e2 = await claims.update(key, encodeClaim(nodeB), e1); // nobody sealed it
    const told: string[] = [];
    const reader = new KvActorStore({
      claims,
      snapshots,
      identity: nodeB,
      scheduler: instantScheduler,
      sealedByRead: (k) => told.push(k),
    });
    const stored = await reader.read(key);
    // No takeover will tell it `restored`: the node is told to, once.
    expect(told).toEqual([key]);
    expect(await reader.read(key)).toMatchObject({ epoch: e2 });
    expect(told).toEqual([key]);
    expect(await b.read(key)).toMatchObject({ epoch: e2 });
    expect(stored).toMatchObject({
      epoch: e2,
      owner: { ...nodeB, mine: true },
      snapshot: { state: { n: 1 } },
    });
    expect(decodeSnapshot((await snapshots.get(key))!.value).epoch).toBe(e2);
    // From then on the old owner is fenced.
    await expect(a.write(key, snapshot(e1, "w1", { n: 2 }, 1), revision)).rejects.toEqual(failure("fenced"));
  });

  it("a read that finds the seal another of ours wrote after it looked (a takeover's) says nothing", async () => {
    const { a, claims, snapshots } = await setup();
    const { epoch: e1 } = await a.create(key, (e) => snapshot(e, "w0", { n: 1 }));
    const e2 = await claims.update(key, encodeClaim(nodeB), e1);
    const unsealed = (await snapshots.get(key))!;
    // The takeover's seal lands between the read's look at the snapshot and its own seal.
    await snapshots.update(
      key,
      encodeSnapshot({ ...decodeSnapshot(unsealed.value), epoch: e2 }),
      unsealed.revision,
    );
    let looks = 0;
    const told: string[] = [];
    const reader = new KvActorStore({
      claims,
      snapshots: withFaults(snapshots, {
        get: (k) => (looks++ === 0 ? Promise.resolve(unsealed) : snapshots.get(k)),
      }),
      identity: nodeB,
      scheduler: instantScheduler,
      sealedByRead: (k) => told.push(k),
    });
    expect(await reader.read(key)).toMatchObject({ epoch: e2, snapshot: { state: { n: 1 } } });
    // That takeover's `taken` tells the actor: a second `restored` would reset a room's recovery.
    expect(told).toEqual([]);
  });

  it("a takeover from an older view of a claim we already took is lost: one writer per epoch", async () => {
    const { a, b, claims, snapshots } = await setup();
    const { epoch: e1 } = await a.create(key, (e) => snapshot(e, "w0"));
    const taken = await b.takeOver(key, e1);
    expect(taken.outcome).toBe("taken");
    if (taken.outcome !== "taken") return;
    const written = await b.write(key, snapshot(taken.epoch, "w1", { n: 1 }, 1), taken.revision);
    // A sweep with a stale view tries again from e1: it must not seal (and overwrite) the acked write.
    expect(await b.takeOver(key, e1)).toEqual({ outcome: "lost" });
    expect((await snapshots.get(key))!.revision).toBe(written);
    expect((await claims.get(key))!.revision).toBe(taken.epoch);
  });

  it("a freed orphan keeps its tombstone, so the dead creator's late first snapshot cannot land", async () => {
    const { a, b, claims, snapshots } = await setup();
    const e1 = await claims.create(key, encodeClaim(nodeA)); // A paused between claim and first snapshot
    expect(await b.takeOver(key, e1)).toEqual({ outcome: "freed" });
    // A resumes and sends its first snapshot: refused, the key is free and stays so.
    await expect(snapshots.create(key, encodeSnapshot(snapshot(e1, "w0")))).rejects.toThrow(/exists/);
    expect(await a.read(key)).toBeNull();
    // A new create writes over the tombstone.
    const { epoch } = await a.create(key, (e) => snapshot(e, "again"));
    expect(decodeSnapshot((await snapshots.get(key))!.value)).toMatchObject({ writeId: "again", epoch });
  });

  it("a timed-out write that landed is recognised by its write id", async () => {
    const { snapshots, storeOf } = await setup();
    let updates = 0;
    const lossy = withFaults(snapshots, {
      update: async (k, v, r) => {
        updates += 1;
        await snapshots.update(k, v, r);
        throw new KvError("timeout", "the acknowledgement was lost");
      },
    });
    const a = storeOf(nodeA, { snapshots: lossy });
    const { epoch, revision: r0 } = await a.create(key, (e) => snapshot(e, "w0"));
    const r1 = await a.write(key, snapshot(epoch, "w1", { n: 1 }, 1), r0);
    expect(updates).toBe(1);
    expect(await a.read(key)).toEqual({
      snapshot: snapshot(epoch, "w1", { n: 1 }, 1),
      revision: r1,
      epoch,
      owner: ownerA,
    });
  });

  it("a timed-out write that did not land is retried once on the revision read back", async () => {
    const { snapshots, storeOf } = await setup();
    let updates = 0;
    const flaky = withFaults(snapshots, {
      update: (k, v, r) => {
        updates += 1;
        return updates === 1
          ? Promise.reject(new KvError("timeout", "no answer"))
          : snapshots.update(k, v, r);
      },
    });
    const a = storeOf(nodeA, { snapshots: flaky });
    const { epoch, revision: r0 } = await a.create(key, (e) => snapshot(e, "w0"));
    const r1 = await a.write(key, snapshot(epoch, "w1", {}, 1), r0);
    expect(updates).toBe(2);
    expect(await a.read(key)).toMatchObject({ revision: r1, snapshot: { writeId: "w1" } });
  });

  it("a write is unavailable when the store keeps refusing it, or when no read back is answered", async () => {
    const { snapshots, storeOf } = await setup();
    const refusing = withFaults(snapshots, {
      update: () => Promise.reject(new KvError("unavailable", "no leader")),
    });
    const a = storeOf(nodeA, { snapshots: refusing });
    const { epoch, revision } = await a.create(key, (e) => snapshot(e, "w0"));
    await expect(a.write(key, snapshot(epoch, "w1"), revision)).rejects.toEqual(failure("unavailable"));

    let gets = 0;
    const silent = withFaults(refusing, {
      get: () => {
        gets += 1;
        return Promise.reject(new KvError("timeout", "no answer"));
      },
    });
    const deaf = storeOf(nodeA, { snapshots: silent });
    await expect(deaf.write(key, snapshot(epoch, "w1"), revision)).rejects.toEqual(failure("unavailable"));
    expect(gets).toBe(3);
    expect(await a.read(key)).toMatchObject({ revision, snapshot: { writeId: "w0" } });
  });

  it("a corrupt snapshot is an error, never a crash", async () => {
    const { a, snapshots } = await setup();
    const { epoch, revision } = await a.create(key, (e) => snapshot(e, "w0"));
    const garbage = await snapshots.update(key, new Uint8Array([0xc1, 0xff, 0x00]), revision);
    await expect(a.read(key)).rejects.toBeInstanceOf(CorruptValueError);
    await expect(a.write(key, snapshot(epoch, "w1"), revision)).rejects.toEqual(failure("unavailable"));
    expect((await snapshots.get(key))!.revision).toBe(garbage);
  });

  it("a create whose claim timed out but landed goes on with that claim", async () => {
    const { claims, storeOf } = await setup();
    const lossy = withFaults(claims, {
      create: async (k, v) => {
        await claims.create(k, v);
        throw new KvError("timeout", "the acknowledgement was lost");
      },
    });
    const a = storeOf(nodeA, { claims: lossy });
    const { epoch } = await a.create(key, (e) => snapshot(e, "w0"));
    expect(epoch).toBe((await claims.get(key))!.revision);
  });

  it("a create that finds a stale snapshot fails with exists and frees the claim again", async () => {
    const { a, claims, snapshots } = await setup();
    await snapshots.create(key, encodeSnapshot(snapshot(1, "leftover")));
    await expect(a.create(key, (e) => snapshot(e, "w0"))).rejects.toEqual(failure("exists"));
    expect(await claims.get(key)).toBeNull();
  });

  it("a create given up on fences its own first snapshot still in flight before it frees the claim", async () => {
    // Found by the fleet simulation (seed 13828): the first snapshot's create timed out without landing
    // yet, its retries were refused, and the create gave up and deleted its claim; then the slow create
    // landed — a snapshot with no claim, which nobody serves and no create of the code can replace.
    const { b, claims, snapshots, storeOf } = await setup();
    let inFlight: Uint8Array | undefined;
    let creates = 0;
    const slow = withFaults(snapshots, {
      create: (k, v) => {
        creates += 1;
        if (creates === 1) {
          inFlight = v;
          return Promise.reject(new KvError("timeout", "no answer yet"));
        }
        // The create's own retries are refused; the store answers again after it gives up.
        if (creates <= 3) return Promise.reject(new KvError("unavailable", "no leader"));
        return snapshots.create(k, v);
      },
    });
    const a = storeOf(nodeA, { snapshots: slow });
    await expect(a.create(key, (e) => snapshot(e, "w0"))).rejects.toEqual(failure("unavailable"));
    // The slow first snapshot arrives now: refused, and the key stays free.
    await expect(snapshots.create(key, inFlight!)).rejects.toThrow(/exists/);
    expect(await claims.get(key)).toBeNull();
    expect(await b.read(key)).toBeNull();
    const { epoch } = await b.create(key, (e) => snapshot(e, "again"));
    expect(await b.read(key)).toMatchObject({ epoch, snapshot: { writeId: "again" } });
  });

  it("a create given up on whose first snapshot landed meanwhile keeps its claim: the key is served", async () => {
    const { claims, snapshots, storeOf } = await setup();
    const lateLanding = withFaults(snapshots, {
      create: async (k, v) => {
        await snapshots.create(k, v);
        throw new KvError("timeout", "landed, but the answer was lost");
      },
      get: (() => {
        let gets = 0;
        // The read-backs of the create miss it (a slow leg); later reads see it.
        return (k: string) => (++gets <= 3 ? Promise.resolve(null) : snapshots.get(k));
      })(),
    });
    const a = storeOf(nodeA, { snapshots: lateLanding });
    await expect(a.create(key, (e) => snapshot(e, "w0"))).rejects.toBeInstanceOf(PersistError);
    const claim = await claims.get(key);
    expect(claim).not.toBeNull();
    expect(await storeOf(nodeA).read(key)).toMatchObject({
      epoch: claim!.revision,
      snapshot: { writeId: "w0" },
      owner: ownerA,
    });
  });

  it("remove deletes the snapshot and the claim, so the key can be created again at a newer epoch", async () => {
    const { a, b, claims, snapshots } = await setup();
    const first = await a.create(key, (e) => snapshot(e, "w0"));
    const r1 = await a.write(key, snapshot(first.epoch, "w1"), first.revision);
    await a.remove(key, r1);
    expect(await claims.get(key)).toBeNull();
    expect(await snapshots.get(key)).toBeNull();
    expect(await a.read(key)).toBeNull();
    const second = await b.create(key, (e) => snapshot(e, "w0-b"));
    expect(second.epoch).toBeGreaterThan(first.epoch);
  });

  it("remove on a stale revision is fenced and removes nothing", async () => {
    const { a, claims } = await setup();
    const { epoch, revision: r0 } = await a.create(key, (e) => snapshot(e, "w0"));
    await a.write(key, snapshot(epoch, "w1"), r0);
    await expect(a.remove(key, r0)).rejects.toEqual(failure("fenced"));
    expect(await claims.get(key)).not.toBeNull();
    expect(await a.read(key)).toMatchObject({ snapshot: { writeId: "w1" } });
  });

  it("a seal that outlives a fence of its node is not taken as the new incarnation's", async () => {
    const { a, claims, snapshots } = await setup();
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = withFaults(snapshots, {
      update: async (k, v, r) => {
        await held;
        return snapshots.update(k, v, r);
      },
    });
    const identity = { ...nodeB };
    const b = new KvActorStore({
      claims,
      snapshots: slow,
      identity,
      scheduler: instantScheduler,
      readBack: { attempts: 3, delayMs: 10 },
    });
    const first = await a.create(key, (e) => snapshot(e, "w0"));
    const taking = b.takeOver(key, first.epoch);
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Fenced meanwhile: the node runs on under a new incarnation (as restartEmpty does).
    identity.incarnation = "i-b2";
    release();
    expect(await taking).toMatchObject({ outcome: "taken" });
    expect(await b.read(key)).toMatchObject({ owner: { node: "n2", incarnation: "i-b", mine: false } });
  });

  it("remove at the actor's epoch deletes the claim without reading it first", async () => {
    const { claims, snapshots, storeOf } = await setup();
    let claimReads = 0;
    const counted = withFaults(claims, {
      get: (k) => {
        claimReads++;
        return claims.get(k);
      },
    });
    const a = storeOf(nodeA, { claims: counted });
    const { epoch, revision } = await a.create(key, (e) => snapshot(e, "w0"));
    claimReads = 0;
    await a.remove(key, revision, epoch);
    expect(claimReads).toBe(0);
    expect(await claims.get(key)).toBeNull();
    expect(await snapshots.get(key)).toBeNull();
  });

  it("remove at an epoch the claim has moved on from leaves the claim that another node took", async () => {
    const { a, claims } = await setup();
    const { epoch, revision } = await a.create(key, (e) => snapshot(e, "w0"));
    const taken = await claims.update(key, encodeClaim(nodeB), epoch);
    await a.remove(key, revision, epoch);
    expect(await claims.get(key)).toMatchObject({ revision: taken });
  });

  it("remove whose claim delete fails reads the claim and frees it if it is still ours", async () => {
    const { claims, storeOf } = await setup();
    let failed = 0;
    const flaky = withFaults(claims, {
      delete: (k, o) => {
        if (failed++ === 0) return Promise.reject(new KvError("timeout", "the delete timed out"));
        return claims.delete(k, o);
      },
    });
    const a = storeOf(nodeA, { claims: flaky });
    const { epoch, revision } = await a.create(key, (e) => snapshot(e, "w0"));
    await a.remove(key, revision, epoch);
    expect(failed).toBe(2);
    expect(await claims.get(key)).toBeNull();
  });

  it("remove leaves a claim that another node took", async () => {
    const { a, claims } = await setup();
    const { epoch, revision } = await a.create(key, (e) => snapshot(e, "w0"));
    const taken = await claims.update(key, encodeClaim(nodeB), epoch);
    await a.remove(key, revision);
    expect(await claims.get(key)).toMatchObject({ revision: taken });
  });
});

describe("snapshot codec", () => {
  it("round-trips a snapshot with timers and results", () => {
    const full: Snapshot = {
      ...snapshot(7, "w9", { members: ["p1", "p2"], at: 1_733_000_000_000 }, 42),
      timers: [
        { name: "countdown", kind: "game", at: 1_733_000_005_000 },
        { name: "seat:p2", kind: "grace", remainingMs: 30_000 },
      ],
      results: [
        { session: "s1", id: 3, at: 1_733_000_000_000, ok: true, value: { code: "ABC123" } },
        { session: "s1", id: 4, at: 1_733_000_000_001, ok: false, code: "FULL", message: "full" },
      ],
    };
    expect(decodeSnapshot(encodeSnapshot(full))).toEqual(full);
  });

  it("a snapshot with many results reuses their packed bytes and reads as msgpack of the same snapshot", () => {
    const results: SnapshotResult[] = Array.from({ length: reusePackedResultsFrom + 200 }, (_, i) =>
      i % 3 === 0
        ? { session: `s${i}`, id: i, at: 1_733_000_000_000 + i, ok: false, code: "FULL", message: "full" }
        : { session: `s${i}`, id: i, at: 1_733_000_000_000 + i, ok: true, value: { code: `C${i}` } },
    );
    const first: Snapshot = { ...snapshot(3, "w1", { n: 1 }, 5), results };
    // The next write keeps the same result objects (their bytes come from the cache) and adds one.
    const added: SnapshotResult = { session: "new", id: 1, at: 1_733_000_001_000, ok: true };
    const second: Snapshot = { ...snapshot(3, "w2", { n: 2 }, 6), results: [...results.slice(1), added] };
    for (const snap of [first, second, first]) {
      const bytes = encodeSnapshot(snap);
      expect(decodeSnapshot(bytes)).toEqual(snap);
      // What any release's decoder sees: the same map as msgpack of the whole snapshot, as long.
      expect(unpack(bytes)).toEqual(unpack(pack(snap)));
      expect(bytes.length).toBe(pack(snap).length);
    }
  });

  it("rejects bytes that are not a snapshot with CorruptValueError", () => {
    const { writeId: _writeId, ...noWriteId } = snapshot(1, "w");
    const badCode = {
      ...snapshot(1, "w"),
      results: [{ session: "s", id: 1, at: 0, ok: false, code: "NOPE" }],
    };
    for (const value of [new Uint8Array([0xc1]), new Uint8Array([1, 2, 3]), encodeClaim(nodeA)]) {
      expect(() => decodeSnapshot(value)).toThrow(CorruptValueError);
    }
    expect(snapshotSchema.safeParse(noWriteId).success).toBe(false);
    expect(snapshotSchema.safeParse(badCode).success).toBe(false);
    expect(snapshotSchema.safeParse(snapshot(1, "w")).success).toBe(true);
  });
});

// PersistError is the runtime's class: the store must throw that one, not a look-alike.
it("throws the runtime's PersistError class", async () => {
  const { a } = await setup();
  await a.create(key, (e) => snapshot(e, "w0"));
  await expect(a.create(key, (e) => snapshot(e, "w1"))).rejects.toBeInstanceOf(PersistError);
});
