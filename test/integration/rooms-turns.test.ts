import { afterEach, describe, expect, it } from "vitest";
import {
  FoyerClient,
  type RoomEventFrame,
  type RoomView,
  type SocketLike,
} from "../../gateway/client/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, eventually, startTestNode, tokenFor } from "../support/node.ts";
import { BrowserLikeSocket } from "../support/browser-socket.ts";

/**
 * Every turn reaches every seat in order over real sockets: across a connection that lost frames before
 * it dropped (the SDK fetches the missed turns when it resumes), and over a long 4-seat match.
 */

type TurnFrame = Extract<RoomEventFrame, { type: "turn" }>;

let node: RunningNode | undefined;
const clients: FoyerClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await node?.stop();
  node = undefined;
});

interface Player {
  readonly id: string;
  readonly client: FoyerClient;
  readonly turns: TurnFrame[];
  readonly events: RoomEventFrame[];
}

function track(id: string, client: FoyerClient): Player {
  clients.push(client);
  const events: RoomEventFrame[] = [];
  const turns: TurnFrame[] = [];
  client.on("roomEvent", (e) => {
    events.push(e);
    if (e.type === "turn") turns.push(e);
  });
  return { id, client, turns, events };
}

function roomOf(p: Player): RoomView {
  if (!p.client.room) throw new Error(`${p.id} has no room`);
  return p.client.room;
}

/**
 * A `ws` socket whose network can be cut: while cut, frames from the node are lost and nothing is sent,
 * yet the node still believes the socket is alive — the turns it sends meanwhile never arrive.
 */
function cuttableSockets(): { Socket: new (url: string) => SocketLike; network: { cut: boolean } } {
  const network = { cut: false };
  class Cuttable extends BrowserLikeSocket {
    override send(data: Uint8Array | string): void {
      if (!network.cut) super.send(data);
    }
    protected override received(data: unknown): void {
      if (!network.cut) super.received(data);
    }
  }
  return { Socket: Cuttable, network };
}

/** Host and guests in a room created directly, everyone ready: the match is playing. */
async function playing(host: Player, guests: Player[], turnMs: number): Promise<void> {
  const { room } = await host.client.createRoom({ seats: 1 + guests.length, mode: "duel", turnMs });
  for (const guest of guests) await guest.client.joinRoom(room);
  for (const p of [host, ...guests]) await p.client.roomReady();
  for (const p of [host, ...guests]) await eventually(() => expect(roomOf(p).phase).toBe("playing"));
}

/** A turn as the game sees it, without the stamp (its seq differs from one player to the next). */
function content(t: TurnFrame): { turn: number; commands: TurnFrame["commands"]; ai?: number[] } {
  return { turn: t.turn, commands: t.commands, ...(t.ai ? { ai: t.ai } : {}) };
}

/** The turn numbers are 1, 2, 3, … with none missing and none repeated. */
function expectConsecutive(turns: readonly TurnFrame[]): void {
  const numbers = turns.map((t) => t.turn);
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1));
}

describe("turns across a lost connection", () => {
  it("a player whose frames were lost before its socket dropped gets the missed turns when it resumes", async () => {
    node = await startTestNode();
    const host = track("host", await clientFor(node, "host"));
    const { Socket, network } = cuttableSockets();
    const guestClient = new FoyerClient({
      urls: [node.url],
      token: tokenFor("guest"),
      WebSocket: Socket,
      reconnectMinMs: 20,
    });
    await guestClient.connect();
    const guest = track("guest", guestClient);
    await playing(host, [guest], 20);
    await eventually(() => expect(guest.turns.length).toBeGreaterThanOrEqual(3));

    network.cut = true;
    const cutAt = guest.turns.length;
    // The host keeps playing and its commands go out in turns the guest never sees.
    for (let i = 0; i < 5; i++) await host.client.command(`while-away-${i}`);
    await eventually(() => expect(host.turns.length).toBeGreaterThanOrEqual(cutAt + 8));
    expect(guest.turns.length).toBe(cutAt);

    network.cut = false;
    guest.client.dropConnection();
    // The node notices the drop and pauses; the guest's SDK resumes its session and catches up.
    await eventually(() => expect(roomOf(host).paused).toBe("missing"));
    await eventually(() => expect(roomOf(host).seats[1]?.connected).toBe(true));
    const pausedAt = roomOf(host).turn;
    await eventually(() => expect(guest.turns.at(-1)?.turn).toBe(pausedAt));
    expectConsecutive(guest.turns);
    expect(guest.turns.length).toBeGreaterThan(cutAt + 5);
    expect(guest.turns.map(content)).toEqual(host.turns.slice(0, guest.turns.length).map(content));
    const away = guest.turns.flatMap((t) => t.commands.map((c) => c.data));
    expect(away).toEqual(Array.from({ length: 5 }, (_, i) => `while-away-${i}`));
    expect(guest.events.some((e) => e.type === "turnsGone")).toBe(false);

    await host.client.resumeRoom();
    await eventually(() => expect(guest.turns.length).toBeGreaterThanOrEqual(pausedAt + 3));
    expectConsecutive(guest.turns);
  });
});

describe("a long match", () => {
  it("delivers 500 turns to 4 seats, in order, each with every command sent for it", async () => {
    node = await startTestNode({ ratePerSecond: "1000", rateBurst: "2000" });
    const players: Player[] = [];
    for (const id of ["p0", "p1", "p2", "p3"]) players.push(track(id, await clientFor(node, id)));
    const [host, ...guests] = players as [Player, ...Player[]];
    const sent = new Map<number, string[]>();
    const failures: unknown[] = [];
    // Every seat sends one command for each turn it receives, until turn 500.
    for (const [side, p] of players.entries()) {
      p.client.on("roomEvent", (e) => {
        if (e.type !== "turn" || e.turn >= 500) return;
        const data = `s${side}-after-${e.turn}`;
        p.client.command(data).then(
          (answer) => {
            const turn = answer?.turn ?? -1;
            sent.set(turn, [...(sent.get(turn) ?? []), data]);
          },
          (error: unknown) => failures.push(error),
        );
      });
    }
    await playing(host, guests, 10);
    for (const p of players)
      await eventually(() => expect(p.turns.length).toBeGreaterThanOrEqual(510), 60_000);
    expect(failures).toEqual([]);
    expect([...sent.values()].flat()).toHaveLength(4 * 499);
    for (const p of players) {
      expectConsecutive(p.turns);
      expect(p.turns.slice(0, 510).map(content)).toEqual(host.turns.slice(0, 510).map(content));
    }
    for (const t of host.turns.slice(0, 510)) {
      expect(t.commands.map((c) => c.data).sort()).toEqual([...(sent.get(t.turn) ?? [])].sort());
    }
  }, 90_000);
});
