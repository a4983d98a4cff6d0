import { describe, expect, it } from "vitest";
import { queueKind, type QueueState } from "../../actors/matchmaking/index.ts";
import { playerKind } from "../../actors/player/index.ts";
import { roomKind, type RoomState } from "../../actors/room/index.ts";
import { createHarness } from "../../actors/runtime/index.ts";
import { locateMatch } from "../../gateway/match-reconnect.ts";
import { MatchmakingRequests } from "../../gateway/requests/index.ts";
import type { MatchmakingRequestFrame } from "../../gateway/protocol/client-frames.ts";
import { Session, type SessionSocket } from "../../gateway/sessions/index.ts";
import { cursorParty, find } from "./support/matchmaking-driver.ts";

/**
 * SPEC §4 on the runtime (fake clock, in-memory store, the real room and player registry): the room checks
 * each matched player's `matchReady` token, and a returning player's gateway finds the running room.
 */

const chess = {
  ...cursorParty,
  id: "chess",
  teams: [
    { code: "red", minUsers: 1, maxUsers: 1, autoAssign: true },
    { code: "black", minUsers: 1, maxUsers: 1, autoAssign: true },
  ],
  queueAccept: { timeoutSecs: 10 },
};
const Q = "queue/chess";

interface Ready {
  matchId: string;
  url: string;
  room: string;
  token: string;
}

/** Alice and Bob matched, both accepted: the room runs. */
async function running() {
  const h = createHarness({
    kinds: [
      { kind: queueKind({ lobbyTypes: [chess] }) as never, createOnDemand: true },
      { kind: roomKind() as never },
      { kind: playerKind() as never, createOnDemand: true },
    ],
  });
  Object.assign(h.node, { roomHost: () => ({ node: "n1", url: "ws://n1/ws" }) });
  await h.system.ask(Q, find("alice", 100));
  await h.system.ask(Q, find("bob", 100));
  await h.clock.advance(2000);
  await h.settle();
  const matchId = h.lastOf("alice", "matchFound")?.matchId;
  await h.system.ask(Q, { type: "accept", player: "alice", matchId });
  await h.system.ask(Q, { type: "accept", player: "bob", matchId });
  await h.settle();
  const ready = (p: string) => h.lastOf(p, "matchReady") as unknown as Ready;
  const key = `room/${ready("alice").room}`;
  const room = () => h.system.peek(key) as RoomState;
  const join = (player: string, token?: string) =>
    h.system.ask(key, {
      type: "join",
      player: { id: player, name: player },
      ...(token === undefined ? {} : { token }),
    });
  return { h, ready, key, room, join };
}

/** A socket that keeps what the gateway sends it. */
function socketOf(sent: object[]): SessionSocket {
  return {
    encoding: "json",
    send: (data) => sent.push(JSON.parse(String(data)) as object),
    close: () => undefined,
  };
}

/** A session of `player` on a fresh socket, and the frames it is sent. */
function comeBack(player: string) {
  const sent: object[] = [];
  const session = new Session(`s-${player}`, player, player);
  const socket = socketOf(sent);
  session.socket = socket;
  return { session, socket, sent };
}

describe("matchmaking tokens and reconnect (SPEC §4)", () => {
  it("the room is created with each player's token: only its own seats a player; anything else is UNAUTHORIZED and changes nothing", async () => {
    const { h, ready, room, join } = await running();
    const alice = ready("alice");
    const bob = ready("bob");
    expect(room().tokens).toEqual({ alice: alice.token, bob: bob.token });
    const before = room();
    for (const token of [undefined, bob.token, "WRONGwrongWRONGwrong1234"]) {
      expect(await join("alice", token)).toMatchObject({ ok: false, code: "UNAUTHORIZED" });
    }
    // Nor can it act in the room before it arrived.
    expect(
      await h.system.ask(`room/${alice.room}`, { type: "ready", player: "alice", ready: true }),
    ).toMatchObject({ ok: false, code: "UNAUTHORIZED" });
    expect(room()).toEqual(before);
    expect(await join("alice", alice.token)).toEqual({ ok: true, value: { room: alice.room, side: 1 } });
    await h.settle();
    // Alice's token is spent; Bob still needs his.
    expect(room().tokens).toEqual({ bob: bob.token });
    expect(await join("bob", alice.token)).toMatchObject({ ok: false, code: "UNAUTHORIZED" });
    expect(await join("bob", bob.token)).toEqual({ ok: true, value: { room: alice.room, side: 2 } });
    await h.settle();
    // The room's arrival news (`leave`) is taken by the queue: no dead letters, no failures.
    expect(h.reported).toEqual([]);
    // Coming back after arriving: the spent token (or none) finds the seat again.
    expect(await join("alice", alice.token)).toMatchObject({ ok: true });
  });

  it("the players' registries index the running room; the room's end clears it and the queue takes them again", async () => {
    const { h, ready, key } = await running();
    const { room } = ready("alice");
    expect(await h.system.ask("player/bob", { type: "get" })).toEqual({
      ok: true,
      value: { lobby: null, match: { queue: Q, room }, search: null, room: null },
    });
    expect(await h.system.ask(Q, find("bob", 100))).toMatchObject({ ok: false, code: "ALREADY_PLAYING" });
    await h.system.ask(key, {
      type: "join",
      player: { id: "alice", name: "alice" },
      token: ready("alice").token,
    });
    await h.system.ask(key, { type: "join", player: { id: "bob", name: "bob" }, token: ready("bob").token });
    await h.system.ask(key, { type: "abort", player: "alice" });
    await h.settle();
    expect(h.system.isLive(key)).toBe(false);
    expect(await h.system.ask("player/bob", { type: "get" })).toMatchObject({ value: { match: null } });
    expect(await h.system.ask(Q, find("bob", 100))).toMatchObject({ ok: true });
  });

  it("a returning player is told its running room with the same token (matchRunning)", async () => {
    const { h, ready } = await running();
    const back = comeBack("bob");
    await locateMatch(h.system, back.session, back.socket);
    const { matchId, url, room, token } = ready("bob");
    expect(back.sent).toEqual([{ type: "matchRunning", queue: Q, matchId, url, room, token }]);
    // A player who plays no match hears nothing.
    const carol = comeBack("carol");
    await locateMatch(h.system, carol.session, carol.socket);
    expect(carol.sent).toEqual([]);
  });

  it("a record whose room is gone is cleared in the queue and the registries, so the player can queue again", async () => {
    const { h, ready, key } = await running();
    // The room is lost without its roomEnded reaching the queue (its node died for good, say).
    await h.system.ask(key, { type: "end" });
    await h.settle();
    expect((h.system.peek(Q) as QueueState).matches).toHaveLength(1);
    const back = comeBack("alice");
    await locateMatch(h.system, back.session, back.socket);
    await h.settle();
    expect(back.sent).toEqual([]);
    expect((h.system.peek(Q) as QueueState).matches).toEqual([]);
    for (const p of ["alice", "bob"]) {
      expect(await h.system.ask(`player/${p}`, { type: "get" })).toMatchObject({ value: { match: null } });
    }
    expect(await h.system.ask(Q, find("alice", 100))).toMatchObject({ ok: true });
    expect(ready("alice").room).toBeTruthy();
  });

  it("a stale index (the queue has no such match) is cleared; a newer match's record survives a late end of an older room", async () => {
    const { h } = await running();
    await h.system.ask("player/dave", { type: "matchStarted", queue: Q, room: "OLDROOM" });
    const back = comeBack("dave");
    await locateMatch(h.system, back.session, back.socket);
    await h.settle();
    expect(back.sent).toEqual([]);
    expect(await h.system.ask("player/dave", { type: "get" })).toMatchObject({ value: { match: null } });
    await h.system.ask("player/dave", { type: "matchStarted", queue: Q, room: "NEWROOM" });
    await h.system.ask("player/dave", { type: "matchEnded", room: "OLDROOM" });
    expect(await h.system.ask("player/dave", { type: "get" })).toMatchObject({
      value: { match: { queue: Q, room: "NEWROOM" } },
    });
  });

  it("a socket replaced during the lookup is sent nothing", async () => {
    const { h } = await running();
    const back = comeBack("bob");
    const looking = locateMatch(h.system, back.session, back.socket);
    back.session.socket = socketOf([]);
    await looking;
    expect(back.sent).toEqual([]);
  });

  it("a search refused ALREADY_PLAYING by a record whose room is gone clears it and is asked again; a running room keeps the refusal", async () => {
    const { h, key } = await running();
    const requests = new MatchmakingRequests({ system: h.system, lobbyTypes: ["chess"] });
    const { session } = comeBack("bob");
    const frame = {
      type: "findLobby",
      id: 1,
      lobbyType: "chess",
      rating: 100,
      maxSteps: 3,
      algorithm: { strategy: "ranged-absolute", alignment: "center", ranges: [10] },
    } as unknown as MatchmakingRequestFrame;
    expect(await requests.handle(session, frame, { session: session.id, id: 1 })).toMatchObject({
      ok: false,
      code: "ALREADY_PLAYING",
    });
    expect((h.system.peek(Q) as QueueState).matches).toHaveLength(1);
    // The room is lost without its roomEnded reaching the queue.
    await h.system.ask(key, { type: "end" });
    await h.settle();
    expect(await requests.handle(session, frame, { session: session.id, id: 2 })).toEqual({
      ok: true,
      value: { entry: "e3" },
    });
    expect((h.system.peek(Q) as QueueState).matches).toEqual([]);
  });
});
