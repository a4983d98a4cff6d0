import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { FoyerClient, RoomEventFrame, SocketLike } from "../../gateway/client/index.ts";
import { decodeServerFrame } from "../../gateway/protocol/codec.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * Relay rooms on a fleet of three node processes over a 3-server NATS cluster (docs/rooms.md): the browse
 * list is one list for the whole fleet, and a room whose node is killed with `kill -9` is taken over by a
 * survivor and plays on with no turn lost or repeated, as its players' SDKs saw it.
 */

const failureTimeoutMs = 3_000;
const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 3,
  flags: { "failure-timeout-ms": String(failureTimeoutMs) },
});
const { nodes, urls } = fleet;

/** A turn as it arrived on a socket, before the SDK's epoch filter and turn log. */
interface RawTurn {
  readonly player: string;
  readonly key: string;
  readonly epoch: number;
  readonly turn: number;
  readonly body: string;
}
const rawTurns: RawTurn[] = [];
const journal: string[] = [];

/** A `ws` socket that notes every turn frame it receives. */
function listeningSocket(player: string): new (url: string) => SocketLike {
  class Listening extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on("message", (data: Buffer, isBinary: boolean) => {
        const decoded = decodeServerFrame(isBinary ? new Uint8Array(data) : data.toString("utf8"));
        // What moved the socket or refused a request, for a failing test's message.
        if (decoded.ok && ["redirect", "moved", "welcome", "error"].includes(decoded.frame.type))
          journal.push(`${player}@${url} ${JSON.stringify(decoded.frame).slice(0, 120)}`);
        if (!decoded.ok || decoded.frame.type !== "turn") return;
        const { key, epoch, turn, commands, ai } = decoded.frame;
        rawTurns.push({ player, key, epoch, turn, body: JSON.stringify({ commands, ai: ai ?? [] }) });
      });
    }
  }
  return Listening as unknown as new (url: string) => SocketLike;
}

/** A player that keeps what its SDK handed on: the room's events in order, and the nodes it landed on. */
interface Player {
  readonly id: string;
  readonly client: FoyerClient;
  readonly events: RoomEventFrame[];
  readonly landings: string[];
}

async function player(id: string, first: string): Promise<Player> {
  const client = await fleet.player(id, first, { WebSocket: listeningSocket(id) });
  const p: Player = { id, client, events: [], landings: [`n${urls.indexOf(first) + 1}`] };
  client.on("roomEvent", (frame) => p.events.push(frame));
  client.on("connected", (info) => p.landings.push(info.node));
  client.on("disconnected", (info) => p.landings.push(`-${info.code}:${info.reason}`));
  return p;
}

type TurnEvent = Extract<RoomEventFrame, { type: "turn" }>;

function turnsOf(p: Player): TurnEvent[] {
  return p.events.filter((e): e is TurnEvent => e.type === "turn");
}

function lastTurn(p: Player): number {
  return turnsOf(p).at(-1)?.turn ?? 0;
}

function body(t: TurnEvent): string {
  return JSON.stringify({ commands: t.commands, ai: t.ai ?? [] });
}

function alive(id: string): boolean {
  return nodes.some((n) => n.id === id && n.child.exitCode === null && n.child.signalCode === null);
}

describe("relay rooms on a fleet of three node processes", () => {
  it("a room whose node is killed resumes on a survivor with no turn lost or repeated", async () => {
    const alice = await player("rf-alice", urls[0]!);
    const bob = await player("rf-bob", urls[1]!);
    const { room: code } = await alice.client.createRoom({ seats: 2, mode: "duo" });
    // bob is on n2: the join sends him to the room's node, n1, where its frames are.
    await bob.client.joinRoom(code);
    expect(bob.landings.at(-1)).toBe("n1");
    await alice.client.roomReady(true);
    await bob.client.roomReady(true);
    await eventually(() => {
      expect(alice.client.room?.phase).toBe("playing");
      expect(bob.client.room?.phase).toBe("playing");
    }, 20_000);
    const firstEpoch = alice.client.room!.epoch;

    // Both send commands all along, each with data of its own, one at a time.
    let sending = true;
    const sent = new Map<string, number>();
    const send = async (p: Player): Promise<void> => {
      for (let n = 0; sending; n++) {
        const data = `${p.id}:${n}`;
        sent.set(data, 0);
        await p.client.command(data).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 60));
      }
    };
    const senders = [send(alice), send(bob)];

    await eventually(() => {
      expect(lastTurn(alice)).toBeGreaterThanOrEqual(40);
      expect(lastTurn(bob)).toBeGreaterThanOrEqual(40);
    }, 30_000);
    const victim = nodes.find((n) => n.id === "n1")!;
    victim.child.kill("SIGKILL");
    await victim.exited;
    const killedAt = Math.max(lastTurn(alice), lastTurn(bob));

    // A survivor takes the room over; both come back, report what they hold, and the clock goes on.
    await eventually(() => {
      const seen = [alice, bob].map((p) => ({
        player: p.id,
        landings: p.landings,
        turn: lastTurn(p),
        room: p.client.room && {
          epoch: p.client.room.epoch,
          paused: p.client.room.paused,
          turn: p.client.room.turn,
        },
        since: p.events.filter((e) => e.type !== "turn").slice(-4),
      }));
      const socketLog = journal.filter((line) => !line.includes("RATE_LIMITED")).slice(-20);
      seen.push({ urls, socketLog } as never);
      expect(Math.min(lastTurn(alice), lastTurn(bob)), JSON.stringify(seen)).toBeGreaterThan(killedAt + 20);
    }, failureTimeoutMs + 60_000);
    sending = false;
    await Promise.all(senders);
    const owner = alice.landings.at(-1)!;
    expect(owner).not.toBe("n1");
    expect(bob.landings.at(-1)).toBe(owner);
    expect(alice.client.room!.epoch).toBeGreaterThan(firstEpoch);

    for (const p of [alice, bob]) {
      const turns = turnsOf(p);
      // Handed on in order from turn 1, each once, none skipped; the room never said turns were gone.
      expect(turns.map((t) => t.turn)).toEqual(turns.map((_, i) => i + 1));
      expect(p.events.filter((e) => e.type === "turnsGone")).toEqual([]);
      expect(p.events.filter((e) => e.type === "desync")).toEqual([]);
    }
    // Both saw the same match: the same commands in every turn both hold.
    const common = Math.min(lastTurn(alice), lastTurn(bob));
    expect(turnsOf(alice).slice(0, common).map(body)).toEqual(turnsOf(bob).slice(0, common).map(body));
    // No turn number was ever sent with two different contents, by either owner, to either player.
    const copies = new Map<number, Set<string>>();
    for (const raw of rawTurns.filter((r) => r.key === `room/${code}`)) {
      const set = copies.get(raw.turn) ?? new Set<string>();
      set.add(raw.body);
      copies.set(raw.turn, set);
    }
    const conflicting = [...copies].filter(([, bodies]) => bodies.size > 1).map(([turn]) => turn);
    expect(conflicting).toEqual([]);
    // The match went on across the kill with the players' commands, and no command went out twice.
    const relayed = turnsOf(alice).flatMap((t) => t.commands.map((c) => c.data as string));
    const twice = relayed.filter((data, i) => relayed.indexOf(data) !== i);
    expect(twice).toEqual([]);
    expect(relayed.every((data) => sent.has(data))).toBe(true);
    const after = turnsOf(alice).filter((t) => t.turn > killedAt + 10);
    expect(after.some((t) => t.commands.length > 0)).toBe(true);

    await alice.client.abortRoom();
    await eventually(() => expect(bob.client.room?.ended).toBe(true), 10_000);
  }, 180_000);

  it("the browse list is one list for the fleet: public rooms and lobbies, filtered, current after a kill -9", async () => {
    // n1 was killed above: n2 and n3 remain.
    const [n2, n3] = [urls[1]!, urls[2]!];
    const viewer = (await player("bv-viewer", n2)).client;
    const mine = (answer: Awaited<ReturnType<FoyerClient["browse"]>>, codes: readonly string[]) => ({
      lobbies: answer.lobbies.filter((l) => codes.includes(l.code)),
      rooms: answer.rooms.filter((r) => codes.includes(r.code)),
    });
    // Made through n3, so n3 owns them; browsed through n2.
    const host = (await player("bv-host", n3)).client;
    const { room: open } = await host.createRoom({ seats: 3, mode: "duo", map: "caves", public: true });
    const lobbyHost = (await player("bv-lobby", n3)).client;
    const { code: lobby } = await lobbyHost.create({ public: true, metadata: { mode: "duo", map: "dunes" } });
    const hidden = (await player("bv-hidden", n3)).client;
    const { room: privateRoom } = await hidden.createRoom({ seats: 2, mode: "duo" });
    const hiddenLobby = (await player("bv-hidden-lobby", n3)).client;
    const { code: privateLobby } = await hiddenLobby.create({ metadata: { mode: "duo" } });
    const starter = (await player("bv-starter", n2)).client;
    const { room: starting } = await starter.createRoom({ seats: 2, mode: "ffa", public: true });
    const codes = [open, lobby, privateRoom, privateLobby, starting];

    await eventually(async () => {
      expect(mine(await viewer.browse(), codes)).toEqual({
        lobbies: [{ code: lobby, mode: "duo", map: "dunes", freeSeats: 7, members: 1, playing: false }],
        rooms: [
          { code: open, mode: "duo", map: "caves", seats: 3, freeSeats: 2, players: 1 },
          { code: starting, mode: "ffa", map: null, seats: 2, freeSeats: 1, players: 1 },
        ].sort((a, b) => (a.code < b.code ? -1 : 1)),
      });
    }, 20_000);
    expect(mine(await viewer.browse({ kind: "rooms", mode: "duo" }), codes)).toEqual({
      lobbies: [],
      rooms: [{ code: open, mode: "duo", map: "caves", seats: 3, freeSeats: 2, players: 1 }],
    });
    expect(mine(await viewer.browse({ kind: "lobbies", mode: "ffa" }), codes)).toEqual({
      lobbies: [],
      rooms: [],
    });

    // A guest found it in the list and joins (sent on to n3); the starter's room fills and starts.
    const guest = (await player("bv-guest", n2)).client;
    await guest.joinRoom(open);
    const second = (await player("bv-second", n3)).client;
    await second.joinRoom(starting);
    await eventually(async () => {
      const answer = mine(await viewer.browse({ freeOnly: true }), codes);
      expect(answer.rooms.map((r) => r.code)).toEqual([open]);
      expect(answer.rooms[0]?.freeSeats).toBe(1);
    }, 20_000);
    await starter.roomReady(true);
    await second.roomReady(true);
    await eventually(async () => {
      expect(mine(await viewer.browse({ kind: "rooms" }), codes).rooms.map((r) => r.code)).toEqual([open]);
    }, 20_000);

    // kill -9 of the node that owns the open room and the public lobby: a survivor serves both, and they
    // are still listed — and leave the list once they close on their new owner.
    const epochs = { room: host.room!.epoch, lobby: lobbyHost.lobby!.epoch };
    const victim = nodes.find((n) => n.id === "n3")!;
    victim.child.kill("SIGKILL");
    await victim.exited;
    await eventually(() => {
      expect(host.room!.epoch).toBeGreaterThan(epochs.room);
      expect(host.room!.seats.find((s) => s.player === "bv-host")?.connected).toBe(true);
      expect(lobbyHost.lobby!.epoch).toBeGreaterThan(epochs.lobby);
      expect(lobbyHost.lobby!.members[0]?.connected).toBe(true);
    }, failureTimeoutMs + 30_000);
    const listed = mine(await viewer.browse(), codes);
    expect(listed.rooms.map((r) => r.code)).toEqual([open]);
    expect(listed.lobbies.map((l) => l.code)).toEqual([lobby]);
    await host.abortRoom();
    await lobbyHost.leave();
    await eventually(async () => {
      expect(mine(await viewer.browse(), codes)).toEqual({ lobbies: [], rooms: [] });
    }, 20_000);
    expect(alive("n2")).toBe(true);
  }, 180_000);
});
