import { afterEach, describe, expect, it } from "vitest";
import { type FoyerClient, type RoomEventFrame, type RoomView } from "../../gateway/client/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, eventually, refusal, startTestNode } from "../support/node.ts";

/**
 * Relay rooms end to end (docs/rooms.md): SDK clients over real sockets, rooms created directly and a
 * lobby's room, on an embedded node. Turns are 50 ms so a test sees many of them quickly.
 */

let node: RunningNode | undefined;
const clients: FoyerClient[] = [];

interface Player {
  readonly id: string;
  readonly client: FoyerClient;
  /** Every turn, paused, resumed, checksum, desync and chat frame, in arrival order. */
  readonly events: RoomEventFrame[];
}

type TurnFrame = Extract<RoomEventFrame, { type: "turn" }>;

async function player(id: string): Promise<Player> {
  node ??= await startTestNode();
  const client = await clientFor(node, id);
  clients.push(client);
  const events: RoomEventFrame[] = [];
  client.on("roomEvent", (frame) => events.push(frame));
  return { id, client, events };
}

function roomOf(p: Player): RoomView {
  if (!p.client.room) throw new Error(`${p.id} has no room`);
  return p.client.room;
}

function turns(p: Player): TurnFrame[] {
  return p.events.filter((e): e is TurnFrame => e.type === "turn");
}

function lastTurn(p: Player): number {
  return turns(p).at(-1)?.turn ?? 0;
}

function ofType<T extends RoomEventFrame["type"]>(
  p: Player,
  type: T,
): Extract<RoomEventFrame, { type: T }>[] {
  return p.events.filter((e): e is Extract<RoomEventFrame, { type: T }> => e.type === type);
}

/** A room created by `host` with `guests` seated in order, everyone ready: the match is playing. */
async function playing(host: Player, guests: Player[], seats = 1 + guests.length): Promise<string> {
  const { room } = await host.client.createRoom({ seats, mode: "duel", turnMs: 50 });
  for (const guest of guests) await guest.client.joinRoom(room);
  for (const p of [host, ...guests]) await p.client.roomReady();
  for (const p of [host, ...guests]) await eventually(() => expect(roomOf(p).phase).toBe("playing"));
  return room;
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await node?.stop();
  node = undefined;
});

describe("relay rooms over real sockets", () => {
  it("starts a direct room when both are ready and relays every command in the next turn, in order", async () => {
    const host = await player("host");
    const guest = await player("guest");
    const created = await host.client.createRoom({ seats: 2, mode: "duel", map: "harbour", turnMs: 50 });
    expect(created.side).toBe(0);
    expect(created.room).toMatch(/^[A-Z]{6}$/);
    expect(await guest.client.joinRoom(created.room.toLowerCase())).toEqual({ room: created.room, side: 1 });
    await eventually(() => expect(roomOf(host).seats.map((s) => s.player)).toEqual(["host", "guest"]));
    expect(roomOf(host)).toMatchObject({ host: "host", phase: "setup", map: "harbour", turnMs: 50 });

    await host.client.roomReady();
    await eventually(() => expect(roomOf(guest).seats[0]?.ready).toBe(true));
    expect(roomOf(guest).phase).toBe("setup");
    await guest.client.roomReady(true);
    await eventually(() => expect(roomOf(host).phase).toBe("playing"));
    expect(roomOf(guest).seed).toBe(roomOf(host).seed);

    // Alternate senders, each command awaited: the arrival order is the send order.
    const sent: { side: number; data: string; turn: number }[] = [];
    for (let i = 0; lastTurn(host) < 20; i++) {
      for (const [side, p] of [host, guest].entries()) {
        const data = `${p.id}-${i}`;
        const answer = await p.client.command(data);
        sent.push({ side, data, turn: answer?.turn ?? -1 });
      }
    }
    const lastCarrying = Math.max(...sent.map((s) => s.turn));
    for (const p of [host, guest])
      await eventually(() => expect(lastTurn(p)).toBeGreaterThanOrEqual(lastCarrying));

    for (const p of [host, guest]) {
      const stream = turns(p).filter((t) => t.turn <= lastCarrying);
      expect(stream.map((t) => t.turn)).toEqual(Array.from({ length: lastCarrying }, (_, i) => i + 1));
      expect(stream.length).toBeGreaterThanOrEqual(20);
      // Every command in the turn its answer named, and all of them in arrival order.
      const relayed = stream.flatMap((t) =>
        t.commands.map((c) => ({ side: c.side, data: c.data, turn: t.turn })),
      );
      expect(relayed).toEqual(sent);
    }
    // Both received the same turn stream.
    const stream = (p: Player) =>
      turns(p)
        .slice(0, lastCarrying)
        .map((t) => ({ turn: t.turn, commands: t.commands, ai: t.ai }));
    expect(stream(guest)).toEqual(stream(host));
  });

  it("lets only the host set AI seats, never side 0, and starts with the AI seat unready", async () => {
    const host = await player("host");
    const guest = await player("guest");
    expect(await refusal(guest.client.joinRoom("NOSUCH"))).toBe("NOT_FOUND");
    const { room } = await host.client.createRoom({ seats: 3, mode: "duel", turnMs: 50 });
    await guest.client.joinRoom(room);
    expect(await refusal(guest.client.setAi(2))).toBe("NOT_HOST");
    expect(await refusal(host.client.setAi(0))).toBe("INVALID");
    expect(await refusal(host.client.setAi(1))).toBe("INVALID");
    await host.client.setAi(2);
    await eventually(() => expect(roomOf(guest).seats[2]?.ai).toBe(true));
    await host.client.roomReady();
    await guest.client.roomReady();
    await eventually(() => expect(roomOf(guest).phase).toBe("playing"));
    expect(await refusal(host.client.setAi(2, false))).toBe("ALREADY_PLAYING");
    expect(await refusal(guest.client.command("x".repeat(4097)))).toBe("INVALID");
  });

  it("reports a checksum mismatch once for its turn and forwards every checksum", async () => {
    const host = await player("host");
    const guest = await player("guest");
    await playing(host, [guest]);
    await eventually(() => expect(lastTurn(guest)).toBeGreaterThanOrEqual(2));
    await host.client.checksum(1, "aaa");
    await guest.client.checksum(1, "bbb");
    await host.client.checksum(1, "ccc"); // a repeat from the same side changes nothing
    await host.client.checksum(2, 42);
    await guest.client.checksum(2, 42);
    // The turn-2 checksum is forwarded after anything about turn 1 on each socket.
    await eventually(() =>
      expect(ofType(guest, "checksum").map((c) => [c.turn, c.value])).toEqual([
        [1, "aaa"],
        [2, 42],
      ]),
    );
    await eventually(() =>
      expect(ofType(host, "checksum").map((c) => [c.turn, c.value])).toEqual([
        [1, "bbb"],
        [2, 42],
      ]),
    );
    for (const p of [host, guest]) {
      expect(ofType(p, "desync").map((d) => ({ turn: d.turn, sides: d.sides }))).toEqual([
        { turn: 1, sides: [0, 1] },
      ]);
    }
    expect(await refusal(host.client.checksum(10_000, 1))).toBe("INVALID");
  });

  it("sends team chat to the team only and all chat to everyone", async () => {
    const [host, mate, other] = [await player("host"), await player("mate"), await player("other")];
    const { room } = await host.client.createRoom({ seats: 3, mode: "duel" });
    await mate.client.joinRoom(room);
    await other.client.joinRoom(room);
    await host.client.roomSetup({ teams: [0, 0, 1] });
    await eventually(() => expect(roomOf(other).seats.map((s) => s.team)).toEqual([0, 0, 1]));
    await host.client.chat("team", "push left");
    await other.client.chat("all", "gl hf");
    const lines = (p: Player): string[] => ofType(p, "chat").map((c) => `${c.channel} ${c.player} ${c.text}`);
    await eventually(() => expect(lines(host)).toEqual(["team host push left", "all other gl hf"]));
    await eventually(() => expect(lines(mate)).toEqual(["team host push left", "all other gl hf"]));
    // `other` got its own line back, so the team line would have come before it.
    await eventually(() => expect(lines(other)).toEqual(["all other gl hf"]));
  });

  it("pauses when a guest drops and resumes on the host's word once it is back", async () => {
    const host = await player("host");
    const guest = await player("guest");
    await playing(host, [guest]);
    await eventually(() => expect(lastTurn(host)).toBeGreaterThanOrEqual(2));
    guest.client.dropConnection();
    await eventually(() =>
      expect(ofType(host, "paused")[0]).toMatchObject({ reason: "missing", missing: ["guest"] }),
    );
    const pausedAt = ofType(host, "paused")[0]!.turn;
    // The guest's client resumes its session by itself; the room marks it back but stays paused.
    await eventually(() => expect(roomOf(host).seats[1]?.connected).toBe(true));
    await eventually(() => expect(ofType(host, "paused").at(-1)?.missing).toEqual([]));
    expect(lastTurn(host)).toBe(pausedAt);
    await host.client.resumeRoom();
    for (const p of [host, guest]) {
      await eventually(() =>
        expect(ofType(p, "resumed")).toEqual([expect.objectContaining({ turn: pausedAt + 1 })]),
      );
      await eventually(() => expect(lastTurn(p)).toBeGreaterThanOrEqual(pausedAt + 3));
    }
    const numbers = turns(host).map((t) => t.turn);
    expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
  });

  it("turns the seat of a player who leaves a started match into AI", async () => {
    const host = await player("host");
    const guest = await player("guest");
    await playing(host, [guest]);
    await guest.client.leaveRoom();
    expect(guest.client.room).toBeNull();
    await eventually(() => expect(roomOf(host).seats[1]).toMatchObject({ player: null, ai: true }));
    await eventually(() => expect(turns(host).some((t) => t.ai?.includes(1) === true)).toBe(true));
    expect(await refusal(guest.client.command("late"))).toBe("NOT_IN_LOBBY");
    // Seated nowhere now, the guest may open a room of its own.
    expect((await guest.client.createRoom({ seats: 1, mode: "solo" })).side).toBe(0);
  });

  it("lists a public room in browse while it is in setup; a private one never", async () => {
    const host = await player("b-host");
    const guest = await player("b-guest");
    const hidden = await player("b-hidden");
    const { room } = await host.client.createRoom({ seats: 2, mode: "browse-duel", public: true });
    const { room: privateRoom } = await hidden.client.createRoom({ seats: 2, mode: "browse-duel" });
    expect(roomOf(host)).toMatchObject({ public: true, direct: true });
    const rooms = async (query: { freeOnly?: boolean } = {}) =>
      (await guest.client.browse({ kind: "rooms", mode: "browse-duel", ...query })).rooms;
    await eventually(async () =>
      expect(await rooms()).toEqual([
        { code: room, mode: "browse-duel", map: null, seats: 2, freeSeats: 1, players: 1 },
      ]),
    );
    expect((await guest.client.browse({ kind: "lobbies", mode: "browse-duel" })).rooms).toEqual([]);
    await guest.client.joinRoom(room);
    await eventually(async () => expect(await rooms({ freeOnly: true })).toEqual([]));
    expect((await rooms()).map((r) => [r.code, r.freeSeats])).toEqual([[room, 0]]);
    await host.client.roomReady();
    await guest.client.roomReady();
    await eventually(async () => expect(await rooms()).toEqual([]));
    expect(privateRoom).not.toBe(room);
    expect(await refusal(guest.client.call({ type: "browse", kind: "players" } as never))).toBe("INVALID");
  });

  it("ends the match when the host aborts it", async () => {
    const host = await player("host");
    const guest = await player("guest");
    await playing(host, [guest]);
    expect(await refusal(guest.client.abortRoom())).toBe("NOT_HOST");
    expect(await refusal(host.client.createRoom({ seats: 1, mode: "solo" }))).toBe("ALREADY_PLAYING");
    await host.client.abortRoom();
    for (const p of [host, guest])
      await eventually(() => expect(roomOf(p)).toMatchObject({ ended: true, phase: "ended" }));
    expect(await refusal(guest.client.command("after"))).toBe("NOT_IN_LOBBY");
    expect((await host.client.createRoom({ seats: 1, mode: "solo" })).room).toMatch(/^[A-Z]{6}$/);
  });

  it("relays the commands of a lobby's room, whose players the lobby seated", async () => {
    const alice = await player("alice");
    const bob = await player("bob");
    const { code } = await alice.client.create();
    await bob.client.join(code);
    const { room } = await alice.client.start("duel");
    for (const p of [alice, bob])
      await eventually(() => expect(roomOf(p)).toMatchObject({ code: room, phase: "playing" }));
    const sides = new Map(
      roomOf(alice).seats.flatMap((s) => (s.player === null ? [] : [[s.player, s.seat]])),
    );
    const a = await alice.client.command("a1");
    const b = await bob.client.command("b1");
    const carrying = Math.max(a?.turn ?? 0, b?.turn ?? 0);
    for (const p of [alice, bob])
      await eventually(() => expect(lastTurn(p)).toBeGreaterThanOrEqual(carrying));
    const relayed = turns(bob).flatMap((t) => t.commands);
    expect(relayed).toEqual([
      { side: sides.get("alice"), data: "a1" },
      { side: sides.get("bob"), data: "b1" },
    ]);
    // A lobby's room is left through the lobby.
    expect(await refusal(bob.client.leaveRoom())).toBe("INVALID");
    await bob.client.chat("all", "gg");
    await eventually(() => expect(ofType(alice, "chat").map((c) => c.text)).toEqual(["gg"]));
  });
});
