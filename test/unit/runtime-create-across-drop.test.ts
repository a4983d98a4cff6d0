import { describe, expect, it } from "vitest";
import { defaultLobbyOptions, lobbyKind } from "../../actors/lobby/index.ts";
import { createHarness, settle } from "../../actors/runtime/index.ts";

// Found by `foyer chaos` (seed 2040): a node SIGSTOPped while it created a lobby was declared dead and
// dropped its actors when it woke; the create then finished and put its actor (the old incarnation's
// epoch) into the new incarnation, which later spoke for the lobby under that epoch after a newer owner.
describe("a create whose node drops every actor while the claim is in flight", () => {
  it("does not bring the actor back, says nothing, and answers UNAVAILABLE (retried elsewhere)", async () => {
    const h = createHarness({ kinds: [{ kind: lobbyKind(defaultLobbyOptions) as never }] });
    const create = h.store.create.bind(h.store);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.store.create = async (key, make) => {
      const claimed = await create(key, make);
      await held; // the process is stopped here
      return claimed;
    };
    const spawning = h.system.spawn("lobby/ABCD12", { code: "ABCD12", host: { id: "a", name: "A" } });
    await Promise.resolve();
    expect(h.system.dropAll()).toBe(0);
    release();
    expect(await spawning).toMatchObject({ created: true, result: { ok: false, code: "UNAVAILABLE" } });
    expect(h.system.isLive("lobby/ABCD12")).toBe(false);
    expect(h.framesOf("a")).toEqual([]);
  });
});

describe("a create whose node's lease runs out while the claim is in flight", () => {
  it("keeps no actor and says nothing, before the node has even noticed it was declared dead", async () => {
    // Woken from a SIGSTOP, the claim's answer can come before the heartbeat that fences the node.
    const h = createHarness({ kinds: [{ kind: lobbyKind(defaultLobbyOptions) as never }] });
    const create = h.store.create.bind(h.store);
    h.store.create = async (key, make) => {
      const claimed = await create(key, make);
      h.node.leaseFresh = false; // the process was stopped past its lease here
      return claimed;
    };
    const spawned = await h.system.spawn("lobby/ABCD12", { code: "ABCD12", host: { id: "a", name: "A" } });
    expect(spawned).toMatchObject({ created: true, result: { ok: false, code: "UNAVAILABLE" } });
    expect(h.system.isLive("lobby/ABCD12")).toBe(false);
    expect(h.framesOf("a")).toEqual([]);
  });
});

describe("a batch whose node drops every actor while its write is in flight", () => {
  it("says nothing of it and answers UNAVAILABLE, even once the node holds a lease again", async () => {
    const h = createHarness({ kinds: [{ kind: lobbyKind(defaultLobbyOptions) as never }] });
    await h.system.spawn("lobby/ABCD12", { code: "ABCD12", host: { id: "a", name: "A" } });
    await h.settle();
    const heard = h.framesOf("a").length;
    const write = h.store.write.bind(h.store);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.store.write = async (key, snapshot, revision) => {
      const written = await write(key, snapshot, revision);
      await held; // the process is stopped here
      return written;
    };
    const ready = h.system.ask("lobby/ABCD12", { type: "ready", player: "a", ready: true });
    await Promise.resolve();
    await Promise.resolve();
    expect(h.system.dropAll()).toBe(1);
    release();
    expect(await ready).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    expect(h.framesOf("a")).toHaveLength(heard);
  });
});

// Found in review: a timer cancelled by a message earlier in the same batch still fired (the armed timer
// is swapped only once the batch is written). A lobby read such a grace, with its member connected, as
// a migration's arrival window running out, and marked the member away.
describe("a timer cancelled earlier in the same batch", () => {
  it("does not fire: a member back in the batch its grace runs out in keeps its seat", async () => {
    const h = createHarness({ kinds: [{ kind: lobbyKind(defaultLobbyOptions) as never }] });
    await h.system.spawn("lobby/ABCD12", { code: "ABCD12", host: { id: "a", name: "A" } });
    await h.system.ask("lobby/ABCD12", { type: "join", player: { id: "b", name: "B" } });
    await h.system.ask("lobby/ABCD12", { type: "connection", player: "b", connected: false });
    await h.settle();
    const write = h.store.write.bind(h.store);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    h.store.write = async (key, snapshot, revision) => {
      await held; // a slow write, while the next messages queue behind it
      return write(key, snapshot, revision);
    };
    // Told, not asked: the asks would time out on this clock before the grace is due.
    h.system.tell("lobby/ABCD12", { type: "ready", player: "a", ready: true });
    await Promise.resolve();
    h.system.tell("lobby/ABCD12", { type: "connection", player: "b", connected: true });
    await h.clock.advance(defaultLobbyOptions.lobbyGraceSeconds * 1000); // b's grace fires behind it
    h.store.write = write;
    release();
    await h.settle();
    const members = (h.system.peek("lobby/ABCD12") as { members: { player: string; connected: boolean }[] })
      .members;
    expect(members.map((m) => [m.player, m.connected])).toEqual([
      ["a", true],
      ["b", true],
    ]);
  });
});

// Found by the fleet simulation: a node fenced and not rejoined yet created a lobby; its claim named the
// new incarnation, which no heartbeat had announced. The node then died before it rejoined, and no
// survivor could tell that incarnation dead: the lobby was never taken over.
describe("a create on a node that holds no lease", () => {
  it("claims nothing and answers UNAVAILABLE (retried elsewhere)", async () => {
    const h = createHarness({ kinds: [{ kind: lobbyKind(defaultLobbyOptions) as never }] });
    const create = h.store.create.bind(h.store);
    let claims = 0;
    h.store.create = (key, make) => {
      claims++;
      return create(key, make);
    };
    h.node.leaseFresh = false;
    const spawned = await h.system.spawn("lobby/ABCD12", { code: "ABCD12", host: { id: "a", name: "A" } });
    expect(spawned).toMatchObject({ created: true, result: { ok: false, code: "UNAVAILABLE" } });
    expect(claims).toBe(0);
    expect(h.store.peek("lobby/ABCD12")).toBeUndefined();
    expect(h.framesOf("a")).toEqual([]);
  });
});

// Found by the fleet simulation: a node cut off from the store, its lease stale, held a create until it
// learned it was fenced, 12 s later; the client waited all that time before it tried another node.
describe("a create on a node whose lease is stale and not settling", () => {
  it("answers UNAVAILABLE at once instead of waiting for the lease", async () => {
    const h = createHarness({ kinds: [{ kind: lobbyKind(defaultLobbyOptions) as never }] });
    h.node.leaseFresh = false;
    // The lease comes back, or the node learns it was fenced, only much later.
    Object.assign(h.node, { leaseSettled: () => new Promise<boolean>(() => undefined) });
    let answered: unknown = "still waiting";
    void h.system.spawn("lobby/ABCD12", { code: "ABCD12", host: { id: "a", name: "A" } }).then((spawned) => {
      answered = spawned;
    });
    await settle();
    expect(answered).toMatchObject({ created: true, result: { ok: false, code: "UNAVAILABLE" } });
    expect(h.store.peek("lobby/ABCD12")).toBeUndefined();
  });
});
