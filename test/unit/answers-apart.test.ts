import { unpack } from "msgpackr";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  PersistError,
  createHarness,
  type Harness,
  settle,
  type AskResult,
  type Snapshot,
  type SnapshotResult,
} from "../../actors/runtime/index.ts";
import { MemoryBusServer, MemoryKvServer, decodeClaim, snapshotSchema } from "../../fleet/index.ts";
import { type FleetNode, startFleetNode } from "../support/fleet-nodes.ts";
import { tallyKind, tallyNode, type TallyNode } from "../support/tally-kind.ts";

// The answers of sessions an actor has not answered lately, stored apart from its snapshot: a retry of
// one gets its first answer wherever the actor is restored (docs/protocol.md, "Exactly once").

const running: FleetNode[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((node) => node.close()));
});

const value = (result: AskResult): unknown => (result.ok ? result.value : result.code);
const add = { type: "add", by: 1 };
/** Enough sessions that most of their chunks are stored apart. */
const sessions = 40;

async function pair(): Promise<[FleetNode, FleetNode]> {
  const kv = new MemoryKvServer();
  const bus = new MemoryBusServer();
  const a = await startFleetNode("a", kv.connect(), bus.connect());
  const b = await startFleetNode("b", kv.connect(), bus.connect());
  running.push(a, b);
  return [a, b];
}

/** `sessions` sessions each add 1 once through `node`: session s{i} was answered i + 1. */
async function churn(node: FleetNode, key: string): Promise<void> {
  for (let s = 0; s < sessions; s++) {
    const answer = await node.system.ask(key, add, { request: { session: `s${s}`, id: 1 } });
    expect(value(answer)).toBe(s + 1);
  }
}

/** The snapshot of `key` as stored, checked to leave s0's answer apart. */
async function storedApart(node: FleetNode, key: string): Promise<Snapshot> {
  const stored = await node.store.read(key);
  if (stored === null) throw new Error(`${key} has no snapshot`);
  const { snapshot } = stored;
  expect(snapshot.apart?.length).toBeGreaterThan(0);
  expect(snapshot.results.some((r) => r.session === "s0")).toBe(false);
  return snapshot;
}

async function claimRevision(node: FleetNode, key: string): Promise<number> {
  const entry = await node.claims.get(key);
  if (entry === null) throw new Error(`${key} has no claim`);
  expect(decodeClaim(entry.value).node).toBeTruthy();
  return entry.revision;
}

describe("answers stored apart from the snapshot", () => {
  it("a retry of an answer stored apart gets its first answer from the node that took the actor over", async () => {
    const [a, b] = await pair();
    const key = "counter/over";
    await a.system.spawn(key, undefined);
    await churn(a, key);
    await storedApart(a, key);
    const revision = await claimRevision(a, key);
    await a.close();
    running.splice(running.indexOf(a), 1);
    expect((await b.store.takeOver(key, revision)).outcome).toBe("taken");
    // s0's answer is in a record apart: answered from it, and nothing applied again.
    expect(value(await b.system.ask(key, add, { request: { session: "s0", id: 1 } }))).toBe(1);
    expect(value(await b.system.ask(key, add, { request: { session: "s20", id: 1 } }))).toBe(21);
    expect(value(await b.system.ask(key, { type: "get" }))).toBe(sessions);
  });

  it("a retry of an answer stored apart gets its first answer after the actor moved to another node", async () => {
    const [a, b] = await pair();
    const key = "counter/moved";
    await a.system.spawn(key, undefined);
    await churn(a, key);
    await storedApart(a, key);
    const revision = await claimRevision(a, key);
    expect(await a.migrations.move(key, revision, { node: "b", url: "ws://b/ws" })).toBe("moved");
    expect(value(await b.system.ask(key, add, { request: { session: "s0", id: 1 } }))).toBe(1);
    expect(value(await b.system.ask(key, { type: "get" }))).toBe(sessions);
  });
});

/** A node of one process over the in-memory KV, as an embedded node runs (snapshots packed as for NATS). */
async function embedded(): Promise<TallyNode> {
  const kv = new MemoryKvServer().connect();
  const snapshots = await kv.bucket("lobbies");
  return tallyNode(kv, snapshots, { node: "n", incarnation: "n" }, 1);
}

describe("the records of answers stored apart", () => {
  it("go with the actor's removal", async () => {
    const node = await embedded();
    const key = "tally/e1";
    await node.system.spawn(key, undefined);
    for (let s = 0; s < sessions; s++) {
      await node.system.ask(key, add, { request: { session: `s${s}`, id: 1 } });
    }
    const records = (await node.snapshots.keys()).filter((k) => k.startsWith(`${key}.answers.`));
    expect(records.length).toBeGreaterThan(0);
    expect(value(await node.system.ask(key, { type: "end" }))).toBeUndefined();
    await settle();
    expect(await node.snapshots.keys()).toEqual([]);
    await node.close();
  });

  it("a snapshot that names them is format 2, which the previous release refuses; one that does not stays 1", async () => {
    const node = await embedded();
    await node.system.spawn("tally/busy", undefined);
    await node.system.spawn("tally/calm", undefined);
    for (let s = 0; s < sessions; s++) {
      await node.system.ask("tally/busy", add, { request: { session: `s${s}`, id: 1 } });
    }
    await node.system.ask("tally/calm", add, { request: { session: "only", id: 1 } });
    const previousRelease = snapshotSchema.extend({ format: z.literal(1) });
    const stored = async (key: string): Promise<unknown> => {
      const entry = await node.snapshots.get(key);
      if (entry === null) throw new Error(`${key} has no snapshot`);
      return unpack(entry.value);
    };
    const busy = await stored("tally/busy");
    expect(busy).toMatchObject({ format: 2 });
    expect(previousRelease.safeParse(busy).success).toBe(false);
    expect(previousRelease.safeParse(await stored("tally/calm")).success).toBe(true);
    await node.close();
  });

  it("a snapshot of the previous release (every answer inline) restores, and its answers are stored apart on the next write", async () => {
    const node = await embedded();
    const key = "tally/old";
    const results: SnapshotResult[] = Array.from({ length: sessions }, (_, s) => ({
      session: `s${s}`,
      id: 1,
      at: Date.now() - 1_000 + s,
      ok: true,
      value: s + 1,
    }));
    const old: Snapshot = {
      format: 1,
      kind: "tally",
      schemaVersion: 1,
      key,
      epoch: 0,
      seq: 0,
      writeId: "old-release",
      state: { n: sessions },
      timers: [],
      results,
    };
    // Created as the previous release wrote it (one plain msgpack map), under a claim of this node.
    await node.store.create(key, (epoch) => ({ ...old, epoch }));
    expect(value(await node.system.ask(key, add, { request: { session: "s0", id: 1 } }))).toBe(1);
    expect(value(await node.system.ask(key, add, { request: { session: "new", id: 1 } }))).toBe(sessions + 1);
    const entry = await node.snapshots.get(key);
    expect(unpack(entry?.value ?? new Uint8Array())).toMatchObject({ format: 2 });
    // Restored again, now from the records apart: the same answers.
    node.system.handOver(key);
    expect(value(await node.system.ask(key, add, { request: { session: "s1", id: 1 } }))).toBe(2);
    expect(value(await node.system.ask(key, add, { request: { session: "new", id: 1 } }))).toBe(sessions + 1);
    await node.close();
  });
});

describe("settling answers apart", () => {
  const tally = (): Harness => createHarness({ kinds: [{ kind: tallyKind as never }] });
  const key = "tally/h1";

  it("a record that cannot be written leaves its answers in the snapshot, so a restore still finds them", async () => {
    const h = tally();
    h.store.writeApart = () => Promise.reject(new PersistError("unavailable", "refused"));
    await h.system.spawn(key, undefined);
    for (let s = 0; s < sessions; s++) {
      await h.system.ask(key, add, { request: { session: `s${s}`, id: 1 } });
    }
    expect(h.store.peek(key)?.apart).toBeUndefined();
    expect(h.store.peek(key)?.results).toHaveLength(sessions);
    h.system.handOver(key);
    expect(value(await h.system.ask(key, add, { request: { session: "s0", id: 1 } }))).toBe(1);
  });

  it("an ack of answers stored apart keeps the rest of their chunk in the snapshot and deletes the record", async () => {
    const h = tally();
    await h.system.spawn(key, undefined);
    for (let s = 0; s < sessions; s++) {
      await h.system.ask(key, add, { request: { session: `s${s}`, id: 1 } });
    }
    const before = h.store.peek(key)?.apart ?? [];
    expect(before.length).toBeGreaterThan(1);
    // s0 changes nothing (so nothing is recorded) but acknowledges its answer 1.
    await h.system.ask(
      key,
      { type: "add", by: 0 },
      { request: { session: "s0", id: 2, answeredThrough: 1 } },
    );
    await settle();
    const after = h.store.peek(key);
    // s0's chunk was written again (settled under a new record); its old record is gone.
    expect(after?.apart).not.toContain(before[0]);
    expect(h.store.apartIds(key)).not.toContain(before[0]);
    h.system.handOver(key);
    // s0's acknowledged answer did not come back with the restore: its re-sent request is a new one.
    expect(value(await h.system.ask(key, add, { request: { session: "s0", id: 1 } }))).toBe(sessions + 1);
    expect(value(await h.system.ask(key, add, { request: { session: "s1", id: 1 } }))).toBe(2);
  });
});
