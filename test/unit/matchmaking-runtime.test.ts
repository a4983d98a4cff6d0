import { describe, expect, it } from "vitest";
import {
  matchedLobbyKind,
  queueKind,
  type MatchedLobbyState,
  type QueueState,
} from "../../actors/matchmaking/index.ts";
import { playerKind } from "../../actors/player/index.ts";
import { createHarness } from "../../actors/runtime/index.ts";
import { cursorParty, find } from "./support/matchmaking-driver.ts";
import { roomRecorder } from "./support/room-recorder.ts";

/** A queue and the lobbies it opens, on the real runtime (fake clock, in-memory store). */

describe("matchmaking on the runtime", () => {
  it("find-or-create opens a lobby, a later search joins it through the lobby's answer, and the start spawns a room", async () => {
    const rooms: { key: string; init: unknown }[] = [];
    const h = createHarness({
      kinds: [
        { kind: queueKind({ lobbyTypes: [cursorParty] }) as never, createOnDemand: true },
        { kind: matchedLobbyKind() as never },
        { kind: roomRecorder(rooms) as never },
        // The queue tells each placed player's registry where it went.
        { kind: playerKind() as never, createOnDemand: true },
      ],
    });
    const Q = "queue/CursorPartyV2";
    const L = "mmlobby/CursorPartyV2/1";
    expect(await h.system.ask(Q, find("alice", 100, { maxSteps: 1 }, "findOrCreateLobby"))).toEqual({
      ok: true,
      value: { entry: "e1" },
    });
    await h.clock.advance(2000);
    await h.settle();
    expect(h.lastOf("alice", "matchedLobby")).toMatchObject({ lobby: L, owner: "alice", phase: "early" });

    await h.system.ask(Q, find("bob", 104));
    await h.clock.advance(2000);
    await h.settle();
    const lobby = h.system.peek(L) as MatchedLobbyState;
    expect(lobby.members.map((m) => m.id)).toEqual(["alice", "bob"]);
    const queue = h.system.peek(Q) as QueueState;
    expect(queue.entries).toEqual([]);
    expect(queue.lobbies.map((l) => [l.lobby, l.rating, l.free])).toEqual([[L, 102, { all: 6 }]]);

    expect(await h.system.ask(L, { type: "ready", player: "bob", ready: true })).toEqual({ ok: true });
    await h.settle();
    expect(rooms).toHaveLength(1);
    expect(h.lastOf("bob", "lobbyStarted")).toMatchObject({
      lobby: L,
      room: rooms[0]!.key.slice("room/".length),
    });
    expect(h.reported).toEqual([]);
  });

  it("a queue's accepted match opens its room where the node state's roomHost says, and each player hears matchReady", async () => {
    const rooms: { key: string; init: unknown }[] = [];
    const chess = {
      ...cursorParty,
      id: "chess",
      teams: [
        { code: "red", minUsers: 1, maxUsers: 1, autoAssign: true },
        { code: "black", minUsers: 1, maxUsers: 1, autoAssign: true },
      ],
      queueAccept: { timeoutSecs: 10 },
    };
    const h = createHarness({
      kinds: [
        { kind: queueKind({ lobbyTypes: [chess] }) as never, createOnDemand: true },
        { kind: roomRecorder(rooms) as never },
        // The queue indexes the running room in each player's registry.
        { kind: playerKind() as never, createOnDemand: true },
      ],
    });
    Object.assign(h.node, { roomHost: () => ({ node: "n1", url: "ws://n1/ws" }) });
    const Q = "queue/chess";
    await h.system.ask(Q, find("alice", 100));
    await h.system.ask(Q, find("bob", 100));
    await h.clock.advance(2000);
    await h.settle();
    const matchId = h.lastOf("alice", "matchFound")?.matchId;
    expect(matchId).toBe("queue/chess#1");
    expect(await h.system.ask(Q, { type: "accept", player: "alice", matchId })).toEqual({ ok: true });
    expect(await h.system.ask(Q, { type: "accept", player: "bob", matchId })).toEqual({ ok: true });
    await h.settle();
    expect(rooms.map((r) => r.key)).toEqual([`room/${String(h.lastOf("bob", "matchReady")?.room)}`]);
    expect(h.lastOf("alice", "matchReady")).toMatchObject({ url: "ws://n1/ws", matchId });
    expect(h.reported).toEqual([]);
  });

  it("tells to a mounted prefix reach its endpoint; asks are refused INVALID", async () => {
    const h = createHarness({ kinds: [] });
    const told: [string, unknown][] = [];
    h.system.mount("filters", { tell: (key, message) => told.push([key, message]) });
    h.system.tell("filters/levels", { type: "filterRequest" });
    expect(told).toEqual([["filters/levels", { type: "filterRequest" }]]);
    expect(await h.system.ask("filters/levels", {})).toMatchObject({ ok: false, code: "INVALID" });
    expect(told).toHaveLength(1);
  });
});
