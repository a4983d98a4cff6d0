import { describe, expect, it } from "vitest";
import { defaultLobbyOptions, lobbyKind } from "../../actors/lobby/index.ts";
import { createHarness } from "../../actors/runtime/index.ts";

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
