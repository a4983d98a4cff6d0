import { describe, expect, it } from "vitest";
import { defaultLobbyOptions, lobbyKind } from "../../actors/lobby/index.ts";
import { roomKind } from "../../actors/room/index.ts";
import { PersistError, createHarness } from "../../actors/runtime/index.ts";

describe("a room that cannot be created", () => {
  it("puts the lobby back to not playing, so the host can start again", async () => {
    const h = createHarness({
      kinds: [{ kind: lobbyKind(defaultLobbyOptions) as never }, { kind: roomKind() as never }],
    });
    const create = h.store.create.bind(h.store);
    let refuseRooms = true;
    h.store.create = (key, snapshot) =>
      refuseRooms && key.startsWith("room/")
        ? Promise.reject(new PersistError("unavailable", "store refused"))
        : create(key, snapshot);
    await h.system.spawn("lobby/ABCD12", { code: "ABCD12", host: { id: "a", name: "A" } });
    await h.system.ask("lobby/ABCD12", { type: "join", player: { id: "b", name: "B" } });
    expect(await h.system.ask("lobby/ABCD12", { type: "start", player: "a", mode: "duel" })).toMatchObject({
      ok: true,
    });
    await h.settle();
    const last = h.lastOf("b", "lobby");
    expect(last).toMatchObject({ playing: false, room: null });
    expect((last?.members as { inRoom: boolean }[]).every((m) => !m.inRoom)).toBe(true);
    expect(h.reported).toContainEqual({
      what: "persistFailed",
      key: expect.stringMatching(/^room\//) as string,
    });
    refuseRooms = false;
    expect(await h.system.ask("lobby/ABCD12", { type: "start", player: "a", mode: "duel" })).toMatchObject({
      ok: true,
    });
    await h.settle();
    expect(h.lastOf("b", "lobby")).toMatchObject({ playing: true });
  });
});
