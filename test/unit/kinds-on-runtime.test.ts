import { describe, expect, it } from "vitest";
import { directoryKind } from "../../actors/directory/index.ts";
import { defaultLobbyOptions, lobbyKind } from "../../actors/lobby/index.ts";
import { playerKind } from "../../actors/player/index.ts";
import { roomKind } from "../../actors/room/index.ts";
import { createHarness } from "../../actors/runtime/harness.ts";

/** The four kinds together on the real runtime (fake clock, in-memory store): the wiring between them. */
function cluster() {
  return createHarness({
    kinds: [
      { kind: lobbyKind(defaultLobbyOptions) as never },
      { kind: roomKind() as never },
      { kind: playerKind() as never, createOnDemand: true },
      { kind: directoryKind() as never, createOnDemand: true },
    ],
    seed: 3,
  });
}

describe("lobby, room, player and directory on the runtime", () => {
  it("create, join, start, finish and return; registry and directory follow", async () => {
    const h = cluster();
    const init = {
      code: "ABC123",
      host: { id: "alice", name: "Alice" },
      public: true,
      metadata: { mode: "duo" },
    };
    expect(await h.system.spawn("lobby/ABC123", init)).toEqual({
      created: true,
      result: { ok: true, value: { code: "ABC123" } },
    });
    // Let the directory and registry be created by the first tells before the next ones are sent.
    await h.settle();
    expect(await h.system.ask("lobby/ABC123", { type: "join", player: { id: "bob", name: "Bob" } })).toEqual({
      ok: true,
      value: { code: "ABC123" },
    });
    await h.settle();
    expect(await h.system.ask("player/bob", { type: "get" })).toEqual({
      ok: true,
      value: { lobby: "lobby/ABC123", match: null, search: null, room: null },
    });
    expect(await h.system.ask("directory/lobbies", { type: "browse" })).toEqual({
      ok: true,
      value: {
        lobbies: [
          {
            code: "ABC123",
            mode: "duo",
            map: null,
            freeSeats: 6,
            members: 2,
            playing: false,
          },
        ],
        rooms: [],
      },
    });

    const started = await h.system.ask("lobby/ABC123", { type: "start", player: "alice", mode: "duo" });
    const room = (started as { value: { room: string } }).value.room;
    await h.settle();
    expect(h.lastOf("bob", "room")).toMatchObject({ code: room, host: "alice", ended: false });

    expect(await h.system.ask(`room/${room}`, { type: "finish", player: "bob" })).toEqual({ ok: true });
    await h.settle();
    expect(h.lastOf("alice", "lobby")).toMatchObject({ playing: true });
    await h.clock.advance(5000);
    expect(h.lastOf("alice", "lobby")).toMatchObject({ playing: false, room: null });
    expect(h.system.isLive(`room/${room}`)).toBe(false);

    await h.system.ask("lobby/ABC123", { type: "leave", player: "bob" });
    await h.system.ask("lobby/ABC123", { type: "leave", player: "alice" });
    await h.settle();
    expect(h.system.isLive("lobby/ABC123")).toBe(false);
    expect(await h.system.ask("player/alice", { type: "get" })).toEqual({
      ok: true,
      value: { lobby: null, match: null, search: null, room: null },
    });
    expect(await h.system.ask("directory/lobbies", { type: "browse" })).toEqual({
      ok: true,
      value: { lobbies: [], rooms: [] },
    });
    expect(h.reported).toEqual([]);
  });

  it("joining a second lobby makes the registry leave the first", async () => {
    const h = cluster();
    await h.system.spawn("lobby/AAAAAA", { code: "AAAAAA", host: { id: "alice", name: "Alice" } });
    await h.system.spawn("lobby/BBBBBB", { code: "BBBBBB", host: { id: "bob", name: "Bob" } });
    await h.system.ask("lobby/BBBBBB", { type: "join", player: { id: "alice", name: "Alice" } });
    await h.settle();
    expect(h.lastOf("bob", "lobby")).toMatchObject({ members: [{ player: "bob" }, { player: "alice" }] });
    expect(h.system.isLive("lobby/AAAAAA")).toBe(false);
    expect(await h.system.ask("player/alice", { type: "get" })).toEqual({
      ok: true,
      value: { lobby: "lobby/BBBBBB", match: null, search: null, room: null },
    });
  });
});
