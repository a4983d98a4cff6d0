import { describe, expect, it } from "vitest";
import type { FoyerClient, RoomEventFrame } from "../../gateway/client/index.ts";
import { NatsKvStore, connectNats, decodeClaim, rendezvousOwner } from "../../fleet/index.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * A lobby's room survives a `kill -9` of the node holding both, also when failover hands the
 * lobby and its room to two different survivors. The lobby's members come back to the lobby's node (its
 * frames reach only sockets there), and the room's frames reach them there all the same: a room's pushes
 * to players connected elsewhere go through the fleet's push relay.
 */

const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 1,
  flags: { "failure-timeout-ms": "3000" },
});
const { nodes, urls } = fleet;
const survivors = ["n2", "n3"];

async function ownerOf(key: string): Promise<string | undefined> {
  const nc = await connectNats({ servers: fleet.nats().urls });
  try {
    const entry = await (await new NatsKvStore(nc).bucket("claims")).get(key);
    return entry === null ? undefined : decodeClaim(entry.value).node;
  } finally {
    await nc.close();
  }
}

type Turn = Extract<RoomEventFrame, { type: "turn" }>;

interface Pair {
  readonly host: FoyerClient;
  readonly guest: FoyerClient;
  readonly lobby: string;
  readonly room: string;
  readonly turns: Map<FoyerClient, Turn[]>;
  /** The node each client was last welcomed at. */
  readonly at: Map<FoyerClient, string>;
  /** What each client heard besides turns, for a failing case's message. */
  readonly log: Map<FoyerClient, string[]>;
}

/** A lobby on n1 with two members, started: its room is on n1 too. */
async function startedLobby(i: number): Promise<Pair> {
  // The members come back only well after the failover: a key a resuming member asks for is taken over
  // where it asks (the lobby, then its room, together), so members that came back at once would keep the
  // two on one node. Nobody asking, each is taken by its rendezvous claimant.
  const late = { reconnectMinMs: 14_000, reconnectMaxMs: 14_000 };
  const host = await fleet.player(`lr-host-${i}`, urls[0]!, late);
  const guest = await fleet.player(`lr-guest-${i}`, urls[0]!, late);
  const turns = new Map<FoyerClient, Turn[]>([
    [host, []],
    [guest, []],
  ]);
  const at = new Map<FoyerClient, string>();
  const log = new Map<FoyerClient, string[]>();
  const t0 = Date.now();
  for (const client of [host, guest]) {
    const lines: string[] = [];
    log.set(client, lines);
    client.on("roomEvent", (e) => {
      if (e.type === "turn") turns.get(client)!.push(e);
      else lines.push(`${Date.now() - t0} ${JSON.stringify(e).slice(0, 160)}`);
    });
    client.on("room", (r) => {
      lines.push(
        `${Date.now() - t0} room e${r.epoch} ${r.phase} paused=${JSON.stringify(r.paused)} turn=${r.turn}`,
      );
    });
    client.on("connected", (c) => {
      at.set(client, c.node);
      lines.push(`${Date.now() - t0} connected ${c.node}`);
    });
    client.on("disconnected", (c) => lines.push(`${Date.now() - t0} disconnected ${c.code}`));
  }
  const { code } = await host.create();
  await guest.join(code);
  const { room } = await host.start("duel");
  return { host, guest, lobby: `lobby/${code}`, room: `room/${room}`, turns, at, log };
}

const lastTurn = (turns: readonly Turn[]): number => turns.at(-1)?.turn ?? 0;

describe("a lobby's room after a kill -9", () => {
  it("taken over by another survivor than its lobby: its players, back on the lobby's node, still hear every turn", async () => {
    // Lobbies and rooms go to survivors by rendezvous hashing of their keys: start rooms until one's
    // lobby and room fall to different survivors (each does with probability ½).
    const pairs: Pair[] = [];
    let split: Pair | undefined;
    for (let i = 0; i < 12 && split === undefined; i++) {
      const pair = await startedLobby(i);
      pairs.push(pair);
      if (rendezvousOwner(pair.lobby, survivors) !== rendezvousOwner(pair.room, survivors)) split = pair;
    }
    expect(split, "no lobby whose room hashes to another survivor in 12 tries").toBeDefined();
    const { host, guest, lobby, room, turns, at, log } = split!;
    expect([await ownerOf(lobby), await ownerOf(room)]).toEqual(["n1", "n1"]);
    await eventually(() => {
      for (const client of [host, guest]) expect(lastTurn(turns.get(client)!)).toBeGreaterThanOrEqual(10);
    }, 30_000);

    nodes[0]!.child.kill("SIGKILL");
    const killedAt = Math.max(...[host, guest].map((c) => lastTurn(turns.get(c)!)));
    const lobbyNode = rendezvousOwner(lobby, survivors)!;
    const roomNode = rendezvousOwner(room, survivors)!;
    await eventually(async () => {
      expect(await ownerOf(lobby)).toBe(lobbyNode);
      expect(await ownerOf(room)).toBe(roomNode);
    }, 30_000);
    // Both members are back, on the lobby's node, and the room's clock goes on for them there.
    await eventually(() => {
      for (const client of [host, guest]) {
        expect(client.lobby?.key).toBe(lobby);
        expect(at.get(client)).toBe(lobbyNode);
        const heard = [host, guest].map((c) => log.get(c)!.slice(-12).join("\n")).join("\n----\n");
        expect(lastTurn(turns.get(client)!), heard).toBeGreaterThan(killedAt + 20);
      }
    }, 60_000);
    for (const client of [host, guest]) {
      const numbers = turns.get(client)!.map((t) => t.turn);
      // Every turn once, in order, none skipped, across the kill.
      expect(numbers).toEqual(numbers.map((_, i) => i + 1));
    }
    for (const pair of pairs) await pair.host.abortRoom().catch(() => undefined);
  }, 180_000);
});
