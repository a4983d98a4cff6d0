import { describe, expect, it } from "vitest";
import { defaultLobbyOptions, lobbyKind } from "../../actors/lobby/index.ts";
import { roomKind } from "../../actors/room/index.ts";
import {
  ActorSystem,
  ManualScheduler,
  PersistError,
  createHarness,
  mutableNode,
  seededRandom,
  type AskResult,
  type Harness,
  type Scheduler,
  type Snapshot,
} from "../../actors/runtime/index.ts";
import { KvActorStore, MemoryKvServer, encodeClaim, type NodeIdentity } from "../../fleet/index.ts";

/**
 * Spawns before what they cause (actors/runtime/mailbox-runner.ts): a lobby's start is heard only once
 * its room is stored, and a lobby restored from a snapshot written before that creates the room again.
 * Found by CI (activity-failover.test.ts): a node killed between a start's transfers and its room's
 * first snapshot left players sent to a room that no longer existed.
 */

const lobby = "lobby/ABCD12";

function lobbyHarness(): Harness {
  return createHarness({
    kinds: [{ kind: lobbyKind(defaultLobbyOptions) as never }, { kind: roomKind() as never }],
  });
}

/** Holds every room create until `release` (a slow store); counts the creates it saw. */
function holdRooms(h: Harness) {
  const create = h.store.create.bind(h.store);
  const held: (() => void)[] = [];
  let holding = true;
  let creates = 0;
  h.store.create = (key, snapshot) => {
    if (!key.startsWith("room/")) return create(key, snapshot);
    creates++;
    if (!holding) return create(key, snapshot);
    return new Promise((resolve, reject) => {
      held.push(() => {
        create(key, snapshot).then(resolve, reject);
      });
    });
  };
  return {
    release() {
      holding = false;
      for (const go of held.splice(0)) go();
    },
    get held() {
      return held.length;
    },
    get creates() {
      return creates;
    },
  };
}

/** A two-member lobby whose host has asked for a room; the room's create is held. */
async function startHeld(h: Harness) {
  const rooms = holdRooms(h);
  await h.system.spawn(lobby, { code: "ABCD12", host: { id: "a", name: "A" } });
  await h.system.ask(lobby, { type: "join", player: { id: "b", name: "B" } });
  await h.settle();
  const heardBefore = h.framesOf("b").length;
  let answer: AskResult | undefined;
  const start = h.system.ask(lobby, { type: "start", player: "a", mode: "duel" }).then((r) => {
    answer = r;
    return r;
  });
  await h.settle();
  return { rooms, start, heardBefore, answered: () => answer };
}

/** The snapshot a node killed at this moment leaves behind, put into a second node's store. */
async function restoreElsewhere(snapshot: Snapshot): Promise<Harness> {
  const h = lobbyHarness();
  await h.store.create(lobby, (epoch) => ({ ...snapshot, epoch }));
  return h;
}

function spawnedRoom(snapshot: Snapshot | undefined): { key: string; init: unknown } {
  const [spawn] = snapshot?.spawning ?? [];
  if (spawn === undefined) throw new Error("the lobby's snapshot names no spawn");
  return spawn;
}

/** The lobby's snapshot a node killed during a start leaves (its room not stored yet), and the room's spawn. */
async function crashedDuringStart(): Promise<{ snapshot: Snapshot; room: { key: string; init: unknown } }> {
  const first = lobbyHarness();
  const { rooms } = await startHeld(first);
  expect(rooms.held).toBe(1);
  const snapshot = structuredClone(first.store.peek(lobby)!);
  return { snapshot, room: spawnedRoom(snapshot) };
}

/** A store that refuses every room create. */
function refuseRooms(h: Harness): void {
  const create = h.store.create.bind(h.store);
  h.store.create = (key, initial) =>
    key.startsWith("room/")
      ? Promise.reject(new PersistError("unavailable", "store refused"))
      : create(key, initial);
}

describe("a spawn and what it causes", () => {
  it("answers the start and tells the members only once the room is stored", async () => {
    const h = lobbyHarness();
    const { rooms, start, heardBefore, answered } = await startHeld(h);
    expect(rooms.held).toBe(1);
    expect(answered()).toBeUndefined();
    expect(h.framesOf("b").length).toBe(heardBefore);
    // The start is written, with the room it is creating.
    const written = h.store.peek(lobby);
    expect(written?.state).toMatchObject({ room: { ended: false } });
    expect(spawnedRoom(written)).toMatchObject({ key: expect.stringMatching(/^room\//) as string });

    rooms.release();
    const answer = await start;
    expect(answer).toMatchObject({ ok: true });
    await h.settle();
    const room = (answer as { value: { room: string } }).value.room;
    expect(h.store.peek(`room/${room}`)).toBeDefined();
    // Written again without it, before anyone heard of the room.
    expect(h.store.peek(lobby)?.spawning).toBeUndefined();
    expect(h.lastOf("b", "lobby")).toMatchObject({ playing: true });
  });

  it("creates the room again when the lobby is restored from a snapshot written before it was stored", async () => {
    const { snapshot, room: spawn } = await crashedDuringStart();
    const room = spawn.key;

    const h = await restoreElsewhere(snapshot);
    const rooms = holdRooms(h);
    let answered = false;
    const asked = h.system.ask(lobby, { type: "ready", player: "b", ready: true }).then((r) => {
      answered = true;
      return r;
    });
    await h.settle();
    // The lobby does not run until its room exists.
    expect(rooms.held).toBe(1);
    expect(answered).toBe(false);
    rooms.release();
    expect(await asked).toMatchObject({ ok: true });
    await h.settle();
    expect(h.store.peek(room)?.state).toMatchObject({ lobby });
    expect(h.store.peek(lobby)?.spawning).toBeUndefined();
  });

  it("leaves a room that was stored before the crash alone", async () => {
    const { snapshot, room } = await crashedDuringStart();

    const h = await restoreElsewhere(snapshot);
    const rooms = holdRooms(h);
    rooms.release();
    expect(await h.system.spawn(room.key, room.init)).toMatchObject({ created: true });
    const stored = await h.store.read(room.key);
    expect(await h.system.ask(lobby, { type: "ready", player: "b", ready: true })).toMatchObject({
      ok: true,
    });
    await h.settle();
    expect(rooms.creates).toBe(1);
    expect((await h.store.read(room.key))?.snapshot.writeId).toBe(stored?.snapshot.writeId);
    expect(h.store.peek(lobby)?.spawning).toBeUndefined();
  });

  it("waits out a claim that is being freed, then creates the room", async () => {
    const { snapshot, room: spawn } = await crashedDuringStart();
    const room = spawn.key;

    const h = await restoreElsewhere(snapshot);
    const read = h.store.read.bind(h.store);
    let refusals = 3;
    h.store.read = (key) => {
      if (key === room && refusals > 0) {
        refusals--;
        return Promise.reject(new PersistError("unavailable", `${key}: an orphaned claim is being freed`));
      }
      return read(key);
    };
    let answered = false;
    const asked = h.system.ask(lobby, { type: "ready", player: "b", ready: true }).then((r) => {
      answered = true;
      return r;
    });
    await h.settle();
    expect(answered).toBe(false);
    await h.clock.advance(500);
    expect(answered).toBe(false);
    await h.clock.advance(1_000);
    expect(await asked).toMatchObject({ ok: true });
    expect(refusals).toBe(0);
    expect(h.store.peek(room)).toBeDefined();
  });

  it("gives up at its deadline and tells the lobby, which is not playing any more", async () => {
    const { snapshot, room: spawn } = await crashedDuringStart();
    const room = spawn.key;

    const h = await restoreElsewhere(snapshot);
    refuseRooms(h);
    // The ask times out meanwhile (its client would retry); the lobby is not loaded until it gives up.
    const asked = h.system.ask(lobby, { type: "ready", player: "b", ready: true });
    await h.clock.advance(30_000);
    expect(await asked).toMatchObject({ ok: false, code: "TIMEOUT" });
    expect(h.system.isLive(lobby)).toBe(false);
    await h.clock.advance(31_000);
    expect(h.system.isLive(lobby)).toBe(true);
    await h.settle();
    expect(h.store.peek(room)).toBeUndefined();
    expect(h.store.peek(lobby)?.state).toMatchObject({ room: null });
    expect(h.store.peek(lobby)?.spawning).toBeUndefined();
    expect(h.reported).toContainEqual({ what: "persistFailed", key: room });
    expect(await h.system.ask(lobby, { type: "ready", player: "b", ready: true })).toMatchObject({
      ok: true,
    });
  });

  it("tells the members nothing of a room that could not be created", async () => {
    const h = lobbyHarness();
    refuseRooms(h);
    await h.system.spawn(lobby, { code: "ABCD12", host: { id: "a", name: "A" } });
    await h.system.ask(lobby, { type: "join", player: { id: "b", name: "B" } });
    await h.settle();
    const framesBefore = h.framesOf("b").length;
    await h.system.ask(lobby, { type: "start", player: "a", mode: "duel" });
    await h.settle();
    const heard = h.framesOf("b").slice(framesBefore);
    expect(heard.length).toBeGreaterThan(0);
    expect(heard.some((f) => f.type === "lobby" && (f as { playing?: unknown }).playing === true)).toBe(
      false,
    );
    expect(h.lastOf("b", "lobby")).toMatchObject({ playing: false, room: null });
  });

  it("says nothing for a start whose node lost its lease while the room was being created", async () => {
    const h = lobbyHarness();
    const { rooms, start, heardBefore } = await startHeld(h);
    h.node.leaseFresh = false;
    rooms.release();
    expect(await start).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    await h.settle();
    expect(h.framesOf("b").length).toBe(heardBefore);
    expect(rooms.creates).toBe(1);
  });

  it("leaves the spawns of a start written as the lease ran out to whoever restores the lobby", async () => {
    const h = lobbyHarness();
    const rooms = holdRooms(h);
    rooms.release();
    await h.system.spawn(lobby, { code: "ABCD12", host: { id: "a", name: "A" } });
    await h.system.ask(lobby, { type: "join", player: { id: "b", name: "B" } });
    await h.settle();
    const heardBefore = h.framesOf("b").length;
    const write = h.store.write.bind(h.store);
    h.store.write = async (key, snapshot, revision) => {
      const written = await write(key, snapshot, revision);
      // The write landed, and the node was declared dead while it was in flight.
      if (snapshot.spawning !== undefined) h.node.leaseFresh = false;
      return written;
    };
    expect(await h.system.ask(lobby, { type: "start", player: "a", mode: "duel" })).toMatchObject({
      ok: false,
      code: "UNAVAILABLE",
    });
    await h.settle();
    expect(rooms.creates).toBe(0);
    expect(h.framesOf("b").length).toBe(heardBefore);
    // The new owner restores this, and creates the room (see above).
    expect(spawnedRoom(h.store.peek(lobby)).key).toMatch(/^room\//);
  });
});

describe("a restore through the fleet's store", () => {
  it("waits out the dead creator's orphaned room claim until failover frees it, then creates the room", async () => {
    const { snapshot, room: spawn } = await crashedDuringStart();
    const room = spawn.key;

    const kv = new MemoryKvServer().connect();
    const claims = await kv.bucket("claims");
    const snapshots = await kv.bucket("lobbies");
    // Read-backs wait one microtask each; the runtime's own waits run on the manual clock.
    const instant: Scheduler = {
      now: () => 0,
      at(_at, fn) {
        queueMicrotask(fn);
        return () => undefined;
      },
    };
    const storeOf = (identity: NodeIdentity) =>
      new KvActorStore({
        claims,
        snapshots,
        identity,
        scheduler: instant,
        readBack: { attempts: 3, delayMs: 1 },
      });
    const dead: NodeIdentity = { node: "n1", incarnation: "dead" };
    const survivor: NodeIdentity = { node: "n2", incarnation: "live" };
    // n1 wrote the start, claimed the room and died before the room's first snapshot.
    await storeOf(dead).create(lobby, (epoch) => ({ ...snapshot, epoch }));
    const orphan = await claims.create(room, encodeClaim(dead));
    const store = storeOf(survivor);
    const lobbyClaim = (await claims.get(lobby))!.revision;
    expect(await store.takeOver(lobby, lobbyClaim)).toMatchObject({ outcome: "taken" });

    const clock = new ManualScheduler();
    const system = new ActorSystem({
      store,
      outbox: { push: () => undefined },
      scheduler: clock,
      random: seededRandom(3),
      node: mutableNode(),
    });
    system.register(lobbyKind(defaultLobbyOptions) as never).register(roomKind());
    let answered = false;
    void system.ask(lobby, { type: "ready", player: "b", ready: true }).then(() => {
      answered = true;
    });
    await clock.advance(2_000);
    // The room's key is still the dead node's: the lobby waits.
    expect(answered).toBe(false);
    expect(system.isLive(lobby)).toBe(false);
    expect(await store.takeOver(room, orphan)).toEqual({ outcome: "freed" });
    // Its next look, 500 ms on, finds the key free (the in-memory KV's answers take a few turns more).
    const waiting = (): boolean => !answered;
    for (let i = 0; i < 4 && waiting(); i++) await clock.advance(500);
    expect(answered).toBe(true);
    expect(system.isLive(lobby)).toBe(true);
    const created = await store.read(room);
    expect(created?.owner).toMatchObject({ ...survivor, mine: true });
    expect(created?.snapshot.state).toMatchObject({ lobby });
    expect((await store.read(lobby))?.snapshot.spawning).toBeUndefined();
  });
});
