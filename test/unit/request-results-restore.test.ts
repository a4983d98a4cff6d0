import { pack, unpack } from "msgpackr";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createHarness,
  defaultResultSessions,
  resultChunksOf,
  type ActorKind,
  type Harness,
  type Snapshot,
  type SnapshotResult,
} from "../../actors/runtime/index.ts";
import { ResultTable } from "../../actors/runtime/request-results.ts";
import { decodeSnapshot, encodeSnapshot } from "../../fleet/index.ts";

// The answers an actor keeps for retries across a restore from its packed snapshot, the per-actor bound,
// and the chunks a snapshot write reuses (docs/protocol.md, "Exactly once").

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

function harness(): Harness {
  return createHarness({ kinds: [{ kind: tallyKind as never }] });
}

function add(h: Harness, session: string, id = 1) {
  return h.system.ask(key, { type: "add", by: 1 }, { request: { session, id } });
}

/** The actor's snapshot as the fleet's store writes it (packed) and a node of this release reads it. */
function packedAndRead(snapshot: Snapshot | undefined): Snapshot {
  if (snapshot === undefined) throw new Error("no snapshot");
  const bytes = encodeSnapshot(snapshot);
  // The previous release's decoder (msgpack of the same shape) reads the same snapshot.
  expect(unpack(bytes)).toEqual(unpack(pack(snapshot)));
  return decodeSnapshot(bytes);
}

/** A second node that restores the actor from `snapshot`, and the records it names, stored by `first`. */
async function restoredFrom(snapshot: Snapshot, first?: Harness): Promise<Harness> {
  const h = harness();
  for (const id of snapshot.apart ?? []) {
    const results = await first?.store.readApart(key, id);
    if (results) await h.store.writeApart(key, id, results);
  }
  await h.store.create(key, (epoch) => ({ ...snapshot, epoch }));
  return h;
}

describe("request results across a restore", () => {
  it("a retry after the actor was restored from its packed snapshot gets the same answer and applies nothing", async () => {
    const first = harness();
    await first.system.spawn(key, undefined);
    for (let s = 0; s < 300; s++) await add(first, `s${s}`);
    const snapshot = first.store.peek(key);
    expect(snapshot?.apart?.length).toBeGreaterThan(0);
    const second = await restoredFrom(packedAndRead(snapshot), first);
    // s299's answer was 300, s100's 101: both among the 256 most recent sessions.
    expect(await add(second, "s299")).toEqual({ ok: true, value: 300 });
    expect(await add(second, "s100")).toEqual({ ok: true, value: 101 });
    // Nothing was applied again: the next new request finds the total the first node left.
    expect(await add(second, "fresh")).toEqual({ ok: true, value: 301 });
  });

  it("at the per-actor bound the oldest sessions' answers go first; a retry past it is applied as a new request", async () => {
    const first = harness();
    await first.system.spawn(key, undefined);
    const total = defaultResultSessions + 10;
    for (let s = 0; s < total; s++) await add(first, `s${s}`);
    const snapshot = packedAndRead(first.store.peek(key));
    const second = await restoredFrom(snapshot, first);
    // s10 is the oldest kept: answered from the table. s9 went: its re-sent request is applied anew.
    expect(await add(second, "s10")).toEqual({ ok: true, value: 11 });
    expect(await add(second, "s9")).toEqual({ ok: true, value: total + 1 });
  });
});

describe("ResultTable's chunks", () => {
  const bounds = { retentionMs: 1_000, maxSessions: 40, perSession: 2 };
  const result = (session: string, id: number, at: number): SnapshotResult => ({
    session,
    id,
    at,
    ok: true,
  });

  it("an answer changes only the chunks of the sessions it moved: the others stay the same objects", () => {
    const table = new ResultTable(bounds);
    for (let s = 0; s < 30; s++) table.add(result(`s${s}`, 1, s));
    table.trim(30);
    const before = resultChunksOf(table.list()) ?? [];
    expect(before.flat().map((r) => r.session)).toEqual(table.list().map((r) => r.session));
    table.add(result("s29", 2, 31));
    table.trim(31);
    const after = resultChunksOf(table.list()) ?? [];
    // s29 was in the last chunk: every other chunk is reused as it was.
    expect(after.slice(0, -1)).toEqual(before.slice(0, -1));
    after.slice(0, -1).forEach((chunk, i) => expect(chunk).toBe(before[i]));
    expect(after.at(-1)).not.toBe(before.at(-1));
  });

  it("pruning by time and by the bound keeps the list and its chunks in the table's order", () => {
    const table = new ResultTable(bounds);
    for (let s = 0; s < 50; s++) table.add(result(`s${s}`, 1, s * 10));
    // The bound of 40 sessions drops s0–s9 (the least recently answered first).
    table.trim(500);
    expect(table.sessionCount).toBe(40);
    table.add(result("s12", 2, 1_150));
    // Then expiry (before 150): s12's first answer, and from the front the sessions last answered earlier.
    const dropped = table.trim(1_150).map((r) => `${r.session}#${r.id}`);
    expect(dropped).toEqual(["s12#1", "s10#1", "s11#1", "s13#1", "s14#1"]);
    const listed = table.list();
    expect(listed.map((r) => r.session)).toEqual([
      ...Array.from({ length: 35 }, (_, i) => `s${i + 15}`),
      "s12",
    ]);
    expect((resultChunksOf(listed) ?? []).flat()).toEqual(listed);
  });
});
