import { pack } from "msgpackr";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createHarness,
  defaultResultSessions,
  maxResultsPerSession,
  type ActorKind,
  type Harness,
  type Snapshot,
  type SnapshotResult,
} from "../../actors/runtime/index.ts";
import { ResultTable } from "../../actors/runtime/request-results.ts";
import { hotChunks, sessionsPerChunk } from "../../actors/runtime/result-chunks.ts";
import { decodeSnapshot } from "../../fleet/index.ts";
import { resultSessionsOf } from "../../ops/config.ts";

// The answers an actor keeps for retries (docs/protocol.md, "Exactly once"): per session, per actor and
// by time, written in every snapshot, and read from snapshots the previous release wrote.

interface Tally {
  readonly n: number;
}
const addSchema = z.object({ type: z.literal("add"), by: z.number() }).strict();

/** Each `add` changes the state and answers the new total: a retry applied twice would show. */
const tallyKind: ActorKind<Tally, z.infer<typeof addSchema>> = {
  kind: "tally",
  schemaVersion: 1,
  create: () => ({ state: { n: 0 }, effects: [] }),
  parse: (m) => {
    const r = addSchema.safeParse(m);
    return r.success ? r.data : undefined;
  },
  handle: (state, message) => {
    if (message.type !== "add") return { state, effects: [] };
    const n = state.n + message.by;
    return { state: { n }, effects: [{ type: "reply", value: n }] };
  },
  upgrade: (state) => z.object({ n: z.number() }).parse(state),
  idle: () => true,
};

const key = "tally/a";

async function tally(resultSessions?: number): Promise<Harness> {
  const h = createHarness({
    kinds: [{ kind: tallyKind as never }],
    ...(resultSessions === undefined ? {} : { resultSessions }),
  });
  await h.system.spawn(key, undefined);
  return h;
}

/** One `add 1` by a session; the answer is the total after it. */
function add(h: Harness, session: string, id = 1) {
  return h.system.ask(key, { type: "add", by: 1 }, { request: { session, id } });
}

/** What a restore reads: the records stored apart that the snapshot names, oldest first, then its own. */
async function storedAnswers(h: Harness): Promise<SnapshotResult[]> {
  const snapshot = h.store.peek(key);
  const apart = await Promise.all((snapshot?.apart ?? []).map((id) => h.store.readApart(key, id)));
  return [...apart.flatMap((results) => results ?? []), ...(snapshot?.results ?? [])];
}

function sessionsOf(results: readonly SnapshotResult[] | undefined): string[] {
  return [...new Set((results ?? []).map((r) => r.session))];
}

describe("request results", () => {
  it("an actor that answered 1,000 sessions keeps only the most recent ones, in memory and in its snapshot", async () => {
    const h = await tally();
    for (let s = 0; s < 1000; s++) await add(h, `s${s}`);
    // The snapshot carries the newest chunks; the older ones are stored apart, and named by it.
    expect(h.store.peek(key)?.results.length).toBeLessThanOrEqual(hotChunks * sessionsPerChunk);
    const results = await storedAnswers(h);
    // Least recently answered first: the stored order is the table's. The oldest record may still hold
    // a few sessions the table dropped since (the restore's trim drops them again).
    const kept = Array.from(
      { length: defaultResultSessions },
      (_, i) => `s${1000 - defaultResultSessions + i}`,
    );
    expect(sessionsOf(results).slice(-defaultResultSessions)).toEqual(kept);
    expect(results.length).toBeLessThan(defaultResultSessions + sessionsPerChunk);
    expect(JSON.stringify(results).length).toBeLessThan(100 * defaultResultSessions);
    // Only the records the snapshot names are kept: those of chunks emptied by the bound were deleted.
    expect(h.store.apartIds(key).sort()).toEqual([...(h.store.peek(key)?.apart ?? [])].sort());
  });

  it("a retry within the bound is answered from the table and applied once; one past it is applied again", async () => {
    const h = await tally(8);
    for (let s = 0; s < 20; s++) expect(await add(h, `s${s}`)).toEqual({ ok: true, value: s + 1 });
    // s12 is the oldest of the 8 most recent sessions: its retry gets its first answer, nothing changes.
    expect(await add(h, "s12")).toEqual({ ok: true, value: 13 });
    expect(await add(h, "s19")).toEqual({ ok: true, value: 20 });
    expect(await add(h, "s20")).toEqual({ ok: true, value: 21 });
    // s12 went when s20 was answered (the 9th session since): its re-sent request is a new one.
    expect(await add(h, "s12")).toEqual({ ok: true, value: 22 });
  });

  it("sessions go in the order they were last answered: one answered again stays", async () => {
    const h = await tally(4);
    for (const session of ["a", "b", "c", "d"]) await add(h, session);
    await add(h, "a", 2);
    await add(h, "e");
    expect(sessionsOf(h.store.peek(key)?.results)).toEqual(["c", "d", "a", "e"]);
    // b went with all of its answers; a kept both of its own.
    expect(await add(h, "a", 1)).toEqual({ ok: true, value: 1 });
    expect(await add(h, "b", 1)).toEqual({ ok: true, value: 7 });
    expect(sessionsOf(h.store.peek(key)?.results)).toEqual(["d", "a", "e", "b"]);
  });

  it("a session keeps its latest maxResultsPerSession answers within the bound of sessions", async () => {
    const h = await tally(2);
    for (let id = 1; id <= maxResultsPerSession + 3; id++) await add(h, "busy", id);
    await add(h, "calm");
    const results = h.store.peek(key)?.results ?? [];
    expect(results.filter((r) => r.session === "busy").map((r) => r.id)).toEqual(
      Array.from({ length: maxResultsPerSession }, (_, i) => i + 4),
    );
    expect(results.filter((r) => r.session === "calm")).toHaveLength(1);
  });

  it("a session whose answers all expired goes; one answered again drops its expired answers", async () => {
    const h = await tally();
    await add(h, "old");
    await add(h, "both", 1);
    await h.clock.advance(100_000);
    await add(h, "both", 2);
    await h.clock.advance(21_000);
    await add(h, "new");
    expect(sessionsOf(h.store.peek(key)?.results)).toEqual(["both", "new"]);
    await add(h, "both", 3);
    expect(h.store.peek(key)?.results.map((r) => `${r.session}#${r.id}`)).toEqual([
      "new#1",
      "both#2",
      "both#3",
    ]);
  });

  it("a write that fails takes back the sessions its batch pushed out: their retries are still answered", async () => {
    const h = await tally(2);
    await add(h, "a");
    await add(h, "b");
    h.store.failWith = "unavailable";
    expect(await add(h, "c")).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    h.store.failWith = undefined;
    expect(await add(h, "a")).toEqual({ ok: true, value: 1 });
    expect(await add(h, "b")).toEqual({ ok: true, value: 2 });
    expect(sessionsOf(h.store.peek(key)?.results)).toEqual(["a", "b"]);
  });

  it("restores the results of a snapshot written by the previous release (every session, in answer order)", async () => {
    const h = createHarness({ kinds: [{ kind: tallyKind as never }], resultSessions: 4 });
    const now = h.clock.now();
    // The previous release kept every session of the last two minutes, in the order it answered them.
    const old: SnapshotResult[] = [
      { session: "gone", id: 1, at: now - 130_000, ok: true, value: 1 },
      ...Array.from({ length: 10 }, (_, i) => ({
        session: `s${i % 5}`,
        id: i + 1,
        at: now - 10_000 + i,
        ok: true,
        value: i + 2,
      })),
    ];
    const snapshot: Snapshot = {
      format: 1,
      kind: "tally",
      schemaVersion: 1,
      key,
      epoch: 1,
      seq: 0,
      writeId: "old-1",
      state: { n: 11 },
      timers: [],
      results: old,
    };
    // The bytes the previous release wrote (msgpack of the same shape) read as they were.
    expect(decodeSnapshot(pack(snapshot))).toEqual(snapshot);
    await h.store.create(key, () => snapshot);
    // s0 answered ids 1 and 6; s1–s4 came after it, so with 4 sessions kept s0 went and s1 stays.
    expect(await add(h, "s1", 7)).toEqual({ ok: true, value: 8 });
    expect(await add(h, "s1", 2)).toEqual({ ok: true, value: 3 });
    expect(await add(h, "s4", 10)).toEqual({ ok: true, value: 11 });
    expect(await h.system.ask(key, { type: "add", by: 0 })).toEqual({ ok: true, value: 11 });
    expect(await add(h, "s0", 6)).toEqual({ ok: true, value: 12 });
    expect(sessionsOf(h.store.peek(key)?.results)).toEqual(["s2", "s3", "s4", "s0"]);
  });

  it("a node keeps at least twice maxMembers sessions, so a full large lobby finds its answers", () => {
    expect(resultSessionsOf({ maxMembers: 8 })).toBe(defaultResultSessions);
    expect(resultSessionsOf({ maxMembers: 1000 })).toBe(2000);
  });
});

describe("a request's ack (the ids its client will never send again)", () => {
  /** One `add 1` by a session with an ack. */
  function addAcking(h: Harness, session: string, id: number, answeredThrough: number) {
    return h.system.ask(key, { type: "add", by: 1 }, { request: { session, id, answeredThrough } });
  }

  it("drops that session's acknowledged results, in memory and from the snapshot it writes", async () => {
    const h = await tally();
    await add(h, "a", 1);
    await add(h, "a", 2);
    await add(h, "b", 1);
    expect(await addAcking(h, "a", 3, 2)).toEqual({ ok: true, value: 4 });
    const stored = (h.store.peek(key)?.results ?? []).map((r) => `${r.session}#${r.id}`);
    expect(stored).toEqual(["b#1", "a#3"]);
    // Another session's results are not the ack's to drop, and a re-sent request keeps its answer.
    expect(await add(h, "b", 1)).toEqual({ ok: true, value: 3 });
    expect(await addAcking(h, "a", 3, 2)).toEqual({ ok: true, value: 4 });
    // A client that sends an acknowledged id again (it said it never would) has it applied anew.
    expect(await add(h, "a", 1)).toEqual({ ok: true, value: 5 });
  });

  it("ignores an ack that is not below the request's own id", async () => {
    const h = await tally();
    await add(h, "a", 5);
    expect(await addAcking(h, "a", 6, 6)).toEqual({ ok: true, value: 2 });
    expect(await addAcking(h, "a", 6, 9)).toEqual({ ok: true, value: 2 });
    expect(await add(h, "a", 5)).toEqual({ ok: true, value: 1 });
  });

  it("puts the acknowledged results back when the batch's write fails", async () => {
    const h = await tally();
    await add(h, "a", 1);
    h.store.failWith = "unavailable";
    expect(await addAcking(h, "a", 2, 1)).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    h.store.failWith = undefined;
    expect(await add(h, "a", 1)).toEqual({ ok: true, value: 1 });
  });
});

describe("ResultTable", () => {
  const bounds = { retentionMs: 1_000, maxSessions: 3, perSession: 2 };
  const result = (session: string, id: number, at: number): SnapshotResult => ({
    session,
    id,
    at,
    ok: true,
  });

  it("trims only what the bounds exceed and returns it, oldest first", () => {
    const table = new ResultTable(bounds);
    for (const [session, id, at] of [
      ["a", 1, 0],
      ["b", 1, 1],
      ["a", 2, 2],
      ["a", 3, 3],
      ["c", 1, 4],
      ["d", 1, 5],
    ] as const)
      table.add(result(session, id, at));
    expect(table.trim(10).map((r) => `${r.session}#${r.id}`)).toEqual(["a#1", "b#1"]);
    expect(table.list().map((r) => `${r.session}#${r.id}`)).toEqual(["a#2", "a#3", "c#1", "d#1"]);
    expect([table.size, table.sessionCount]).toEqual([4, 3]);
    expect(table.trim(10)).toEqual([]);
    expect(table.get({ session: "a", id: 3 })).toEqual(result("a", 3, 3));
    expect(table.get({ session: "b", id: 1 })).toBeUndefined();
  });

  it("undo puts back what a trim dropped and takes out what was added", () => {
    const table = new ResultTable(bounds);
    for (const session of ["a", "b", "c"]) table.add(result(session, 1, 0));
    table.trim(0);
    table.add(result("d", 1, 5));
    const dropped = table.trim(5);
    expect(dropped.map((r) => r.session)).toEqual(["a"]);
    table.undo([{ session: "d", id: 1 }], dropped);
    expect(table.list().map((r) => r.session)).toEqual(["a", "b", "c"]);
    expect(table.size).toBe(3);
  });
});
