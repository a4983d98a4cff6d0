import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createHarness,
  maxResultsPerSession,
  type ActorKind,
  type Effect,
  type Harness,
} from "../../actors/runtime/index.ts";

interface Counter {
  readonly n: number;
}
const messageSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("add"), by: z.number(), to: z.string().optional() }).strict(),
  z.object({ type: z.literal("boom") }).strict(),
  z.object({ type: z.literal("get") }).strict(),
  z
    .object({ type: z.literal("arm"), name: z.string(), at: z.number(), kind: z.enum(["game", "grace"]) })
    .strict(),
  z.object({ type: z.literal("timer"), name: z.string() }).strict(),
  z.object({ type: z.literal("end") }).strict(),
  z.object({ type: z.literal("tick") }).strict(),
  z.object({ type: z.literal("echo") }).strict(),
]);
type CounterMessage = z.infer<typeof messageSchema>;

/** A tiny kind that exercises every runtime feature. */
const counterKind: ActorKind<Counter, CounterMessage> = {
  kind: "counter",
  schemaVersion: 1,
  create: () => ({ state: { n: 0 }, effects: [{ type: "reply", value: "made" }] }),
  parse: (m) => {
    const r = messageSchema.safeParse(m);
    return r.success ? r.data : undefined;
  },
  handle(state, message) {
    switch (message.type) {
      case "add": {
        const n = state.n + message.by;
        const effects: Effect[] = [{ type: "push", to: [message.to ?? "p1"], frame: { type: "count", n } }];
        effects.push({ type: "reply", value: n });
        return { state: { n }, effects };
      }
      case "boom":
        throw new Error("handler bug");
      case "get":
        return { state, effects: [{ type: "reply", value: state.n }] };
      case "arm":
        return {
          state,
          effects: [{ type: "timer", name: message.name, at: message.at, kind: message.kind }],
        };
      case "timer":
        return {
          state: { n: state.n + 1000 },
          effects: [{ type: "push", to: ["p1"], frame: { type: "fired", name: message.name } }],
        };
      case "end":
        return { state, effects: [{ type: "stop" }] };
      case "echo":
        return { state, effects: [{ type: "push", to: ["p1"], frame: { type: "count", n: state.n } }] };
      case "tick":
        return {
          state: { n: state.n + 1 },
          effects: [{ type: "push", to: ["p1"], frame: { type: "tick", n: state.n + 1 } }],
          volatile: true,
        };
      case "restored":
        return { state, effects: [] };
    }
  },
  upgrade: (state) => z.object({ n: z.number() }).parse(state),
  idle: () => true,
};

function harness(): Harness {
  return createHarness({ kinds: [{ kind: counterKind as never }], passivateAfterMs: 10_000 });
}

async function made(h: Harness, key = "counter/a"): Promise<void> {
  const spawned = await h.system.spawn(key, undefined);
  expect(spawned).toEqual({ created: true, result: { ok: true, value: "made" } });
}

describe("actor runtime", () => {
  it("handles messages one at a time, in order, stamping pushes with epoch and sequence", async () => {
    const h = harness();
    await made(h);
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map((by) => h.system.ask("counter/a", { type: "add", by })),
    );
    expect(answers.map((a) => (a.ok ? a.value : a.code))).toEqual([1, 3, 6, 10, 15]);
    const frames = h.framesOf("p1");
    expect(frames.map((f) => f.n)).toEqual([1, 3, 6, 10, 15]);
    expect(frames.map((f) => f.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(frames.map((f) => f.epoch)).size).toBe(1);
    expect(frames[0]!.key).toBe("counter/a");
  });

  it("group-commits a burst: fewer snapshot writes than messages, every change persisted", async () => {
    const h = harness();
    await made(h);
    const before = h.store.writes;
    await Promise.all(Array.from({ length: 20 }, () => h.system.ask("counter/a", { type: "add", by: 1 })));
    expect(h.store.writes - before).toBeLessThan(20);
    expect(h.store.peek("counter/a")?.state).toEqual({ n: 20 });
  });

  it("refuses unknown keys with NOT_FOUND and malformed messages with INVALID", async () => {
    const h = harness();
    await made(h);
    expect(await h.system.ask("counter/none", { type: "get" })).toMatchObject({
      ok: false,
      code: "NOT_FOUND",
    });
    expect(await h.system.ask("nokind/x", { type: "get" })).toMatchObject({ ok: false, code: "NOT_FOUND" });
    expect(await h.system.ask("counter/a", { type: "add", by: "x" })).toMatchObject({
      ok: false,
      code: "INVALID",
    });
    expect(await h.system.ask("counter/a", { type: "get" })).toEqual({ ok: true, value: 0 });
  });

  it("supervises: a throwing handler keeps the last good state, the asker gets INTERNAL, the actor lives on", async () => {
    const h = harness();
    await made(h);
    await h.system.ask("counter/a", { type: "add", by: 2 });
    expect(await h.system.ask("counter/a", { type: "boom" })).toMatchObject({ ok: false, code: "INTERNAL" });
    expect(h.reported).toContainEqual({ what: "handlerFailed", key: "counter/a" });
    expect(await h.system.ask("counter/a", { type: "add", by: 1 })).toEqual({ ok: true, value: 3 });
  });

  it("persists before acknowledging: a refused write acknowledges nothing and pushes nothing", async () => {
    const h = harness();
    await made(h);
    h.store.failWith = "unavailable";
    const refused = await h.system.ask("counter/a", { type: "add", by: 5 });
    expect(refused).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    expect(refused.ok ? 0 : refused.retryAfterMs).toBeGreaterThan(0);
    expect(h.framesOf("p1")).toHaveLength(0);
    h.store.failWith = undefined;
    await h.clock.advance(1_000);
    expect(await h.system.ask("counter/a", { type: "add", by: 1 })).toEqual({ ok: true, value: 1 });
  });

  it("stops a fenced actor: nothing acknowledged, the asker hears MOVED", async () => {
    const h = harness();
    await made(h);
    h.store.failWith = "fenced";
    expect(await h.system.ask("counter/a", { type: "add", by: 1 })).toMatchObject({
      ok: false,
      code: "MOVED",
    });
    expect(h.system.isLive("counter/a")).toBe(false);
    expect(h.framesOf("p1")).toHaveLength(0);
  });

  it("applies a retried request once and answers it with the first result, also after a restore", async () => {
    const h = harness();
    await made(h);
    const request = { session: "s1", id: 7 };
    expect(await h.system.ask("counter/a", { type: "add", by: 4 }, { request })).toEqual({
      ok: true,
      value: 4,
    });
    expect(await h.system.ask("counter/a", { type: "add", by: 4 }, { request })).toEqual({
      ok: true,
      value: 4,
    });
    await h.settle();
    expect(h.system.passivateIdle()).toBe(1);
    expect(await h.system.ask("counter/a", { type: "add", by: 4 }, { request })).toEqual({
      ok: true,
      value: 4,
    });
    expect(await h.system.ask("counter/a", { type: "get" })).toEqual({ ok: true, value: 4 });
    expect(
      await h.system.ask("counter/a", { type: "add", by: 4 }, { request: { session: "s1", id: 8 } }),
    ).toEqual({
      ok: true,
      value: 8,
    });
  });

  it("forgets request results after the retention time", async () => {
    const h = harness();
    await made(h);
    const request = { session: "s1", id: 1 };
    await h.system.ask("counter/a", { type: "add", by: 1 }, { request });
    await h.clock.advance(121_000);
    await h.system.ask("counter/a", { type: "add", by: 0 });
    expect(h.store.peek("counter/a")?.results).toEqual([]);
  });

  it("fires timers at their absolute deadline on the fake clock", async () => {
    const h = harness();
    await made(h);
    const at = h.clock.now() + 5_000;
    await h.system.ask("counter/a", { type: "arm", name: "t", at, kind: "game" });
    await h.clock.advance(4_999);
    expect(h.framesOf("p1")).toHaveLength(0);
    await h.clock.advance(1);
    expect(h.framesOf("p1").map((f) => f.type)).toEqual(["fired"]);
    expect(h.store.peek("counter/a")?.timers).toEqual([]);
  });

  it("snapshots game timers as deadlines and grace timers as remaining time", async () => {
    const h = harness();
    await made(h);
    const now = h.clock.now();
    await h.system.ask("counter/a", { type: "arm", name: "g", at: now + 8_000, kind: "game" });
    await h.system.ask("counter/a", { type: "arm", name: "r", at: now + 3_000, kind: "grace" });
    expect(h.store.peek("counter/a")?.timers).toEqual([
      { name: "g", kind: "game", at: now + 8_000 },
      { name: "r", kind: "grace", remainingMs: 3_000 },
    ]);
  });

  it("passivates idle actors and restores them from their snapshot on the next message", async () => {
    const h = harness();
    await made(h);
    await h.system.ask("counter/a", { type: "add", by: 9 });
    await h.clock.advance(16_000);
    expect(h.system.isLive("counter/a")).toBe(false);
    expect(await h.system.ask("counter/a", { type: "add", by: 1 })).toEqual({ ok: true, value: 10 });
    expect(h.framesOf("p1").map((f) => f.seq)).toEqual([1, 2]);
  });

  it("a spawn of a taken key reports it, so the caller draws another code", async () => {
    const h = harness();
    await made(h);
    expect(await h.system.spawn("counter/a", undefined)).toEqual({ created: false });
  });

  it("a stopped actor's snapshot is removed", async () => {
    const h = harness();
    await made(h);
    await h.system.ask("counter/a", { type: "end" });
    expect(h.store.peek("counter/a")).toBeUndefined();
    expect(await h.system.ask("counter/a", { type: "get" })).toMatchObject({ code: "NOT_FOUND" });
  });

  it("asks time out when the actor cannot answer", async () => {
    const h = harness();
    await made(h);
    const write = h.store.write.bind(h.store);
    h.store.write = () => new Promise<number>(() => undefined);
    const pending = h.system.ask("counter/a", { type: "add", by: 1 }, { timeoutMs: 2_000 });
    await h.clock.advance(2_000);
    expect(await pending).toMatchObject({ ok: false, code: "TIMEOUT" });
    h.store.write = write;
  });

  it("with a stale lease it refuses asks as retryable and keeps tells until the lease is fresh", async () => {
    const h = harness();
    await made(h);
    h.node.leaseFresh = false;
    expect(await h.system.ask("counter/a", { type: "add", by: 1 })).toMatchObject({ code: "UNAVAILABLE" });
    h.system.tell("counter/a", { type: "add", by: 2 });
    await h.settle();
    expect(h.framesOf("p1")).toHaveLength(0);
    h.node.leaseFresh = true;
    await h.clock.advance(1_000);
    expect(h.framesOf("p1").map((f) => f.n)).toEqual([2]);
  });

  it("runs volatile changes' effects at once and writes them within the flush interval", async () => {
    const h = harness();
    await made(h);
    const writes = h.store.writes;
    for (let i = 0; i < 5; i++) h.system.tell("counter/a", { type: "tick" });
    await h.settle();
    expect(h.framesOf("p1").map((f) => f.n)).toEqual([1, 2, 3, 4, 5]);
    expect(h.store.writes).toBe(writes);
    expect(h.system.passivateIdle()).toBe(0);
    await h.clock.advance(3_000);
    expect(h.store.writes).toBe(writes + 1);
    expect(h.store.peek("counter/a")?.state).toEqual({ n: 5 });
  });

  it("a durable change writes the volatile ones before it", async () => {
    const h = harness();
    await made(h);
    h.system.tell("counter/a", { type: "tick" });
    expect(await h.system.ask("counter/a", { type: "add", by: 10 })).toEqual({ ok: true, value: 11 });
    expect(h.store.peek("counter/a")?.state).toEqual({ n: 11 });
    const writes = h.store.writes;
    await h.clock.advance(5_000);
    expect(h.store.writes).toBe(writes);
  });

  it("writes the sequence number of a push that changed nothing, so a restore never reuses it", async () => {
    const h = harness();
    await made(h);
    await h.system.ask("counter/a", { type: "add", by: 1 });
    await h.system.ask("counter/a", { type: "echo" });
    await h.settle();
    expect(h.system.passivateIdle()).toBe(1);
    await h.system.ask("counter/a", { type: "add", by: 1 });
    expect(h.framesOf("p1").map((f) => f.seq)).toEqual([1, 2, 3]);
  });

  it("a failed write keeps the results of earlier batches: a retry is still answered, not applied again", async () => {
    const h = harness();
    await made(h);
    const first = { session: "s", id: 1 };
    expect(await h.system.ask("counter/a", { type: "add", by: 5 }, { request: first })).toEqual({
      ok: true,
      value: 5,
    });
    h.store.failWith = "unavailable";
    const [retry, fresh] = await Promise.all([
      h.system.ask("counter/a", { type: "add", by: 5 }, { request: first }),
      h.system.ask("counter/a", { type: "add", by: 1 }, { request: { session: "s", id: 2 } }),
    ]);
    expect(retry).toEqual({ ok: true, value: 5 });
    expect(fresh).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    h.store.failWith = undefined;
    await h.clock.advance(1_000);
    expect(await h.system.ask("counter/a", { type: "add", by: 5 }, { request: first })).toEqual({
      ok: true,
      value: 5,
    });
    expect(await h.system.ask("counter/a", { type: "get" })).toEqual({ ok: true, value: 5 });
  });

  it("a timer that fires while the store refuses writes fires again once it takes them", async () => {
    const h = harness();
    await made(h);
    await h.system.ask("counter/a", { type: "arm", name: "t", at: h.clock.now() + 1_000, kind: "game" });
    h.store.failWith = "unavailable";
    await h.clock.advance(1_000);
    expect(h.framesOf("p1")).toHaveLength(0);
    h.store.failWith = undefined;
    await h.clock.advance(1_000);
    expect(h.framesOf("p1").map((f) => f.type)).toEqual(["fired"]);
    expect(h.store.peek("counter/a")?.timers).toEqual([]);
  });

  it("keeps at most maxResultsPerSession results per session", async () => {
    const h = harness();
    await made(h);
    for (let id = 1; id <= maxResultsPerSession + 8; id++) {
      await h.system.ask("counter/a", { type: "add", by: 1 }, { request: { session: "busy", id } });
    }
    await h.system.ask("counter/a", { type: "add", by: 1 }, { request: { session: "calm", id: 1 } });
    const results = h.store.peek("counter/a")?.results ?? [];
    expect(results.filter((r) => r.session === "busy")).toHaveLength(maxResultsPerSession);
    expect(results.filter((r) => r.session === "calm")).toHaveLength(1);
  });

  it("a snapshot that cannot be restored answers INTERNAL and a store that cannot be read UNAVAILABLE", async () => {
    const h = harness();
    await made(h);
    await h.settle();
    h.system.passivateIdle();
    const snapshot = h.store.peek("counter/a");
    if (!snapshot) throw new Error("no snapshot");
    (snapshot as { state: unknown }).state = { n: "corrupt" };
    expect(await h.system.ask("counter/a", { type: "get" })).toMatchObject({ ok: false, code: "INTERNAL" });
    h.store.read = () => Promise.reject(new Error("store down"));
    expect(await h.system.ask("counter/b", { type: "get" })).toMatchObject({
      ok: false,
      code: "UNAVAILABLE",
    });
  });

  it("restores a key only when its claim is this node's; another owner's key is answered MOVED", async () => {
    const h = harness();
    await made(h);
    await h.settle();
    h.system.passivateIdle();
    h.store.reclaim("counter/a", { node: "other", incarnation: "i-2" });
    expect(await h.system.ask("counter/a", { type: "get" })).toMatchObject({ ok: false, code: "MOVED" });
    expect(h.system.isLive("counter/a")).toBe(false);
    expect(await h.system.spawn("counter/a", undefined)).toEqual({ created: false });
  });
});

describe("the node view a handler gets", () => {
  /** Replies with the room host the node names at the moment it reads it. */
  const hostKind: ActorKind<Counter, { type: "where" }> = {
    kind: "host",
    schemaVersion: 1,
    create: () => ({ state: { n: 0 }, effects: [] }),
    parse: (m) => ((m as { type?: unknown } | null)?.type === "where" ? { type: "where" } : undefined),
    handle: (state, _message, ctx) => ({
      state,
      effects: [{ type: "reply", value: ctx.node.roomHost ?? null }],
    }),
    upgrade: (state) => z.object({ n: z.number() }).parse(state),
    idle: () => true,
  };

  it("works out the room host only when a handler reads it (it weighs every peer's load)", async () => {
    const h = createHarness({ kinds: [{ kind: counterKind as never }, { kind: hostKind as never }] });
    let asked = 0;
    Object.assign(h.node, {
      roomHost: () => {
        asked++;
        return { node: "n2", url: "ws://n2/ws" };
      },
    });
    await made(h);
    for (let i = 0; i < 5; i++) await h.system.ask("counter/a", { type: "add", by: 1 });
    expect(asked).toBe(0);
    await h.system.spawn("host/a", undefined);
    expect(await h.system.ask("host/a", { type: "where" })).toEqual({
      ok: true,
      value: { node: "n2", url: "ws://n2/ws" },
    });
    expect(asked).toBe(1);
  });
});
