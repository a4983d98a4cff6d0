import { describe, expect, it } from "vitest";
import { queueKind, type QueueState } from "../../actors/matchmaking/index.ts";
import { playerKind } from "../../actors/player/index.ts";
import { PersistError, createHarness, type Harness, type Snapshot } from "../../actors/runtime/index.ts";
import { cursorParty, find } from "./support/matchmaking-driver.ts";
import { roomRecorder } from "./support/room-recorder.ts";

/**
 * A queue's match is announced only once its room is stored, on the real runtime. Seen on a
 * fleet with every node at its room limit: the matched players were sent `matchReady` twice, for rooms
 * that were never created, and every `joinRoom` failed NOT_FOUND — the queue announced a match in the
 * same step as a spawn that could fail.
 */

const Q = "queue/chess";
const chess = {
  ...cursorParty,
  id: "chess",
  teams: [
    { code: "red", minUsers: 1, maxUsers: 1, autoAssign: true },
    { code: "black", minUsers: 1, maxUsers: 1, autoAssign: true },
  ],
  queueAccept: { timeoutSecs: 10 },
};

function queueHarness(): Harness {
  const h = createHarness({
    kinds: [
      { kind: queueKind({ lobbyTypes: [chess] }) as never, createOnDemand: true },
      { kind: roomRecorder([]) as never },
      { kind: playerKind() as never, createOnDemand: true },
    ],
  });
  Object.assign(h.node, { roomHost: () => ({ node: "n1", url: "ws://n1/ws" }) });
  return h;
}

/**
 * Every room create fails while `full` is set, as a node at its room limit refuses a placed room; the
 * node's view then names no host for 5 s, as a fleet node's router passes over a node that refused.
 */
function roomLimit(h: Harness) {
  const create = h.store.create.bind(h.store);
  const limit = { full: true, refused: 0, refusedAt: Number.NEGATIVE_INFINITY };
  h.store.create = (key, initial) => {
    if (!key.startsWith("room/") || !limit.full) return create(key, initial);
    limit.refused++;
    limit.refusedAt = h.clock.now();
    return Promise.reject(new PersistError("unavailable", "no room here"));
  };
  Object.assign(h.node, {
    roomHost: () => (h.clock.now() - limit.refusedAt < 5_000 ? undefined : { node: "n1", url: "ws://n1/ws" }),
  });
  return limit;
}

/** Holds every room create until `release` (a slow node), as the crash cases need. */
function holdRooms(h: Harness) {
  const create = h.store.create.bind(h.store);
  const held: (() => void)[] = [];
  h.store.create = (key, initial) =>
    key.startsWith("room/")
      ? new Promise((resolve, reject) => held.push(() => void create(key, initial).then(resolve, reject)))
      : create(key, initial);
  return { held, release: () => held.splice(0).forEach((go) => go()) };
}

/** Alice and Bob are matched and both accept (the last accept's answer may wait for the room). */
async function matchAndAccept(h: Harness): Promise<void> {
  await h.system.ask(Q, find("alice", 100));
  await h.system.ask(Q, find("bob", 100));
  await h.clock.advance(2000);
  await h.settle();
  const matchId = h.lastOf("alice", "matchFound")?.matchId;
  expect(matchId).toBe(`${Q}#1`);
  void h.system.ask(Q, { type: "accept", player: "alice", matchId });
  void h.system.ask(Q, { type: "accept", player: "bob", matchId });
  await h.settle();
}

/** Every `matchReady` a player heard, by room code. */
function readyRooms(h: Harness, player: string): string[] {
  return h
    .framesOf(player)
    .filter((f) => f.type === "matchReady")
    .map((f) => String(f.room));
}

/** A queue's snapshot `queue` a node killed left behind, with every room its store holds, in a new node. */
async function restoreElsewhere(from: Harness, queue: Snapshot): Promise<Harness> {
  const h = queueHarness();
  await h.store.create(Q, (epoch) => ({ ...queue, epoch }));
  for (const key of from.store.keys().filter((k) => k.startsWith("room/"))) {
    const room = structuredClone(from.store.peek(key)!);
    await h.store.create(key, (epoch) => ({ ...room, epoch }));
  }
  return h;
}

describe("a queue's match and its room", () => {
  it("with every node at its room limit: no matchReady for a room that was never stored, one once a room frees", async () => {
    const h = queueHarness();
    const limit = roomLimit(h);
    await matchAndAccept(h);
    await h.clock.advance(3000);
    await h.settle();
    expect(limit.refused).toBeGreaterThan(0);
    expect(readyRooms(h, "alice")).toEqual([]);
    expect(readyRooms(h, "bob")).toEqual([]);
    // The players are still the queue's: their match waits for a room.
    const waiting = h.system.peek(Q) as QueueState;
    expect(waiting.matches.map((m) => [m.starting, m.announced])).toEqual([[true, false]]);

    limit.full = false;
    await h.clock.advance(6000);
    await h.settle();
    const [room] = readyRooms(h, "alice");
    expect(readyRooms(h, "alice")).toEqual([room]);
    expect(readyRooms(h, "bob")).toEqual([room]);
    expect(await h.store.read(`room/${room}`)).not.toBeNull();
  });

  it("a crash while the room is being created: the restored queue announces it once, when it is stored", async () => {
    const first = queueHarness();
    const rooms = holdRooms(first);
    await matchAndAccept(first);
    expect(rooms.held).toHaveLength(1);
    expect(readyRooms(first, "alice")).toEqual([]);

    // The pending match and the spawn are in the snapshot; the room never got stored.
    const h = await restoreElsewhere(first, structuredClone(first.store.peek(Q)!));
    expect(h.store.keys().filter((k) => k.startsWith("room/"))).toEqual([]);
    void h.system.ask(Q, { type: "activeMatch", player: "alice" });
    await h.settle();
    const [room] = readyRooms(h, "alice");
    expect(readyRooms(h, "alice")).toEqual([room]);
    expect(readyRooms(h, "bob")).toEqual([room]);
    expect(await h.store.read(`room/${room}`)).not.toBeNull();
  });

  it("a crash after the room was stored but before it was announced: asked again, the same room is announced once", async () => {
    const first = queueHarness();
    const rooms = holdRooms(first);
    await matchAndAccept(first);
    const { spawning, ...pending } = structuredClone(first.store.peek(Q)!);
    expect(spawning).toHaveLength(1);
    rooms.release();
    await first.settle();
    const [stored] = first.store.keys().filter((k) => k.startsWith("room/"));
    expect(stored).toBeDefined();

    // Written again without the spawn, its confirmation not handled yet: the snapshot says "pending".
    const h = await restoreElsewhere(first, pending);
    void h.system.ask(Q, { type: "activeMatch", player: "alice" });
    await h.settle();
    expect(readyRooms(h, "alice")).toEqual([]);
    // The match's timer: the room's confirmation was due 15 s after it was asked for (2 s in).
    await h.clock.advance(17_000);
    await h.settle();
    expect(readyRooms(h, "alice")).toEqual([stored!.slice("room/".length)]);
    expect(readyRooms(h, "bob")).toEqual([stored!.slice("room/".length)]);
    expect(h.store.keys().filter((k) => k.startsWith("room/"))).toEqual([stored]);
  });
});
