import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FoyerClient, MatchmakingView, SearchFields } from "../../gateway/client/index.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * A fleet at its limits answers honestly (docs/operations.md, "Limits"): two node processes over a
 * nats-server, each running at most one room and one private lobby. Seen on a fleet with every node at
 * its room limit: matched players were sent `matchReady` twice for rooms that were never created, and
 * every `joinRoom` failed NOT_FOUND. And new lobbies always landed on the gateway's own node.
 */

/** One red and one black player, matched by the queue and asked to accept; a step every half second. */
function lobbyTypesFile(): string {
  const duel = {
    id: "Duel",
    teams: [
      { code: "red", minUsers: 1, maxUsers: 1, autoAssign: true },
      { code: "black", minUsers: 1, maxUsers: 1, autoAssign: true },
    ],
    rules: {
      allowEarlyStartWithoutMax: false,
      forceOnTimeStartWithoutReady: false,
      allowJoinInProgress: false,
      onTimeStartSecs: 60,
      disbandOnStart: false,
      everyReadyMinPercent: 0,
      everyReadyMinNum: 1,
      earliestStartSecs: 0,
      tooLateSecs: 60,
    },
    queueAccept: { timeoutSecs: 60 },
    stepSeconds: 0.5,
  };
  const path = join(mkdtempSync(join(tmpdir(), "foyer-limits-")), "lobby-types.json");
  writeFileSync(path, JSON.stringify({ lobbyTypes: [duel] }));
  return path;
}

const fleet = useProcessFleet({
  ids: ["n1", "n2"],
  natsServers: 1,
  flags: { "max-rooms": "1", "max-lobbies": "1", "lobby-types-file": lobbyTypesFile() },
});
const { urls, admins } = fleet;

/** A counter of a node's /metrics with these labels (0 when it has not counted any). */
async function metric(admin: string, name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${admin}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}}`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
}

/** A player that accepts every match and takes its seat in the room of each `matchReady` it hears. */
interface Player {
  readonly client: FoyerClient;
  readonly frames: MatchmakingView[];
  readonly seats: string[];
  readonly refusals: string[];
}

async function player(id: string, url: string): Promise<Player> {
  const client = await fleet.player(id, url);
  const p: Player = { client, frames: [], seats: [], refusals: [] };
  client.on("matchmaking", (frame) => {
    p.frames.push(frame);
    if (frame.type === "matchFound") void client.acceptMatch(frame.matchId).catch(() => undefined);
    if (frame.type === "matchReady")
      void client.enterMatchRoom(frame).then(
        (seat) => p.seats.push(seat.room),
        (error: unknown) => p.refusals.push(String(error)),
      );
  });
  return p;
}

function readyRooms(p: Player): string[] {
  return p.frames.flatMap((f) => (f.type === "matchReady" ? [f.room] : []));
}

const search: SearchFields = {
  rating: 100,
  maxSteps: 1000,
  algorithm: { strategy: "ranged-absolute", alignment: "center", ranges: [10] },
};

/** The lobbies a node's /status counts (its lobby claims). */
async function lobbiesOf(admin: string): Promise<number> {
  return ((await (await fetch(`${admin}/status`)).json()) as { lobbies: number }).lobbies;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("a fleet at its limits", () => {
  it("every node at its room limit: no matchReady for a room that does not exist; matched once a room frees", async () => {
    // One direct room on each node: both are full.
    const hosts = [await fleet.player("lim-host-1", urls[0]!), await fleet.player("lim-host-2", urls[1]!)];
    for (const host of hosts) await host.createRoom({ seats: 2, mode: "duel" });
    const alice = await player("lim-alice", urls[0]!);
    const bob = await player("lim-bob", urls[1]!);
    await alice.client.findLobby("Duel", search);
    await bob.client.findLobby("Duel", search);
    // Several of the queue's steps (every 0.5 s) with nowhere to play: nobody is told of a room.
    await sleep(4_000);
    expect(readyRooms(alice)).toEqual([]);
    expect(readyRooms(bob)).toEqual([]);
    expect(alice.refusals).toEqual([]);

    // A room frees (its host leaves before the start): the two are matched, into a room that exists.
    await hosts[1]!.leaveRoom();
    await eventually(() => {
      expect(alice.seats).toHaveLength(1);
      expect(bob.seats).toEqual(alice.seats);
    }, 30_000);
    expect(readyRooms(alice)).toEqual(alice.seats);
    expect(readyRooms(bob)).toEqual(alice.seats);
    expect([...alice.refusals, ...bob.refusals]).toEqual([]);
  }, 90_000);

  it("a node at its lobby limit redirects a create to a peer with room (reason full); every node full refuses it FULL", async () => {
    const first = await fleet.player("lim-first", urls[0]!);
    await first.create();
    // n1 counts its lobbies by its claims, as its /status does: once it counted the one it holds, …
    await eventually(async () => expect(await lobbiesOf(admins[0]!)).toBe(1));
    const before = await metric(admins[0]!, "foyer_redirects_total", 'reason="full"');
    // … the next create through it is made on n2.
    const second = await fleet.player("lim-second", urls[0]!);
    const landed = second.next("connected");
    const { code } = await second.create();
    expect((await landed).node).toBe("n2");
    expect(second.url).toBe(urls[1]);
    expect(await metric(admins[0]!, "foyer_redirects_total", 'reason="full"')).toBe(before + 1);
    const joiner = await fleet.player("lim-joiner", urls[1]!);
    expect(await joiner.join(code)).toEqual({ code });

    // Both nodes hold their lobby: a create through either is refused, typed and final.
    await eventually(async () => expect(await lobbiesOf(admins[1]!)).toBe(1));
    for (const url of urls) {
      const late = await fleet.player(`lim-late-${url}`, url);
      await expect(late.create()).rejects.toMatchObject({ code: "FULL" });
    }
  }, 90_000);
});
