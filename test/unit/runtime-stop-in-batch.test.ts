import { describe, expect, it } from "vitest";
import { defaultLobbyOptions, lobbyKind } from "../../actors/lobby/index.ts";
import { createHarness } from "../../actors/runtime/index.ts";

// Found by `foyer chaos` (seed 2030): a join that reached a lobby in the same batch as its last member's
// leave was acknowledged into the lobby the leave then deleted, and its frame named no host.
describe("an actor that stops in the middle of a batch", () => {
  it("does not take what came after: a join behind the last leave finds no lobby", async () => {
    const h = createHarness({ kinds: [{ kind: lobbyKind(defaultLobbyOptions) as never }] });
    await h.system.spawn("lobby/ABCD12", { code: "ABCD12", host: { id: "a", name: "A" } });
    await h.settle();
    // Passivated: the next messages wait for its load together and run as one batch.
    expect(h.system.passivateIdle()).toBe(1);
    const leave = h.system.ask("lobby/ABCD12", { type: "leave", player: "a" });
    const join = h.system.ask("lobby/ABCD12", { type: "join", player: { id: "b", name: "B" } });
    expect(await leave).toMatchObject({ ok: true });
    expect(await join).toMatchObject({ ok: false, code: "NOT_FOUND" });
    await h.settle();
    expect(await h.store.read("lobby/ABCD12")).toBeNull();
    expect(h.framesOf("b")).toEqual([]);
  });
});
