import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  type ActivityEventView,
  type ActivityTransferView,
  type FoyerClient,
} from "../../gateway/client/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, eventually, lobbyOf, refusal, startTestNode } from "../support/node.ts";

/**
 * Activity lobbies end to end (docs/activity.md): SDK clients over real sockets, the directory and its
 * lobbies on an embedded node. The countdowns are long, the start delay short: a test waits only for
 * the cut to `startDelay`.
 */

const one = { minTeamSize: 1, maxTeamSize: 1, startDelay: 1 };
const testActivities = {
  activities: [
    // Two players fill a lobby: the third goes to a second one.
    { id: "duo", map: "1203", minTeams: 2, maxTeams: 2, waitTime: 30, ...one },
    { id: "race", map: "1203", minTeams: 2, maxTeams: 4, waitTime: 60, ...one },
  ],
};

function activitiesFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), "foyer-activity-test-")), "activities.json");
  writeFileSync(path, JSON.stringify(testActivities));
  return path;
}

let node: RunningNode | undefined;
const clients: FoyerClient[] = [];

interface Player {
  readonly client: FoyerClient;
  /** Every `activity` event, as `EVENT player|time`. */
  readonly events: string[];
  readonly transfers: ActivityTransferView[];
}

function line(frame: ActivityEventView): string {
  return "time" in frame ? `${frame.event} ${frame.time}` : `${frame.event} ${frame.player}`;
}

async function player(id: string): Promise<Player> {
  if (!node) throw new Error("no node");
  const client = await clientFor(node, id);
  clients.push(client);
  const events: string[] = [];
  const transfers: ActivityTransferView[] = [];
  client.on("activity", (frame) => events.push(line(frame)));
  client.on("activityTransfer", (frame) => transfers.push(frame));
  return { client, events, transfers };
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await node?.stop();
  node = undefined;
});

describe("activity lobbies over real sockets", () => {
  it("fills a lobby in the seed's order, cuts the countdown when all are ready and transfers both", async () => {
    node = await startTestNode({ activitiesFile: activitiesFile() });
    const alice = await player("alice");
    const bob = await player("bob");
    const { lobby } = await alice.client.joinActivity("duo", { vehicle: "car-7" });
    expect(lobby).toBe("activityLobby/duo/1");
    await eventually(() => expect(alice.events).toEqual(["PLAYER_ADDED alice"]));
    expect(await bob.client.joinActivity("duo")).toEqual({ lobby });
    await eventually(() =>
      expect(bob.events).toEqual(["PLAYER_ADDED bob", "PLAYER_ADDED alice", "PHASE_WAIT_READY 30"]),
    );
    await eventually(() =>
      expect(alice.events).toEqual(["PLAYER_ADDED alice", "PLAYER_ADDED bob", "PHASE_WAIT_READY 30"]),
    );
    expect(alice.client.activityLobby).toBe(lobby);

    await alice.client.activityReady();
    await eventually(() => expect(bob.events.at(-1)).toBe("PLAYER_READY alice"));
    await bob.client.activityReady(true);
    for (const p of [alice, bob]) {
      await eventually(() =>
        expect(p.events.slice(-3)).toEqual(["PLAYER_READY alice", "PLAYER_READY bob", "PHASE_WAIT_START 1"]),
      );
    }

    await eventually(() => {
      expect(alice.transfers).toHaveLength(1);
      expect(bob.transfers).toHaveLength(1);
    }, 4_000);
    const [a, b] = [alice.transfers[0], bob.transfers[0]];
    expect(a).toMatchObject({
      activity: "duo",
      map: "1203",
      url: node.url,
      key: lobby,
      team: ["alice", "bob"],
    });
    expect(b).toMatchObject({
      activity: "duo",
      map: "1203",
      url: node.url,
      key: lobby,
      team: ["alice", "bob"],
    });
    expect(a?.room).toMatch(/^[A-Z]{6}$/);
    expect(b?.room).toBe(a?.room);
    expect(a?.token).not.toBe(b?.token);
  });

  it("shows a chosen vehicle before the player, to everyone", async () => {
    node = await startTestNode({ activitiesFile: activitiesFile() });
    const alice = await player("alice");
    const bob = await player("bob");
    const seen: ActivityEventView[] = [];
    bob.client.on("activity", (frame) => seen.push(frame));
    await alice.client.joinActivity("race", { vehicle: "car-7" });
    await bob.client.joinActivity("race");
    await eventually(() => expect(seen).toHaveLength(3));
    expect(Object.keys(seen[1] ?? {}).slice(0, 5)).toEqual(["type", "event", "vehicle", "player", "name"]);
    expect(seen[1]).toMatchObject({ event: "PLAYER_ADDED", vehicle: "car-7", player: "alice" });
  });

  it("sends a player who finds the lobby full to a new lobby", async () => {
    node = await startTestNode({ activitiesFile: activitiesFile() });
    const [a, b, c] = [await player("a"), await player("b"), await player("c")];
    const first = await a.client.joinActivity("duo");
    expect(await b.client.joinActivity("duo")).toEqual(first);
    const second = await c.client.joinActivity("duo");
    expect(second.lobby).toBe("activityLobby/duo/2");
    await eventually(() => expect(c.events).toEqual(["PLAYER_ADDED c"]));
    expect(a.events).not.toContain("PLAYER_ADDED c");
  });

  it("leaving gives PLAYER_REMOVED to both, the leaver included, and pauses the countdown", async () => {
    node = await startTestNode({ activitiesFile: activitiesFile() });
    const [a, b] = [await player("a"), await player("b")];
    await a.client.joinActivity("race");
    await b.client.joinActivity("race");
    await eventually(() => expect(a.events).toContain("PHASE_WAIT_READY 60"));
    await b.client.leaveActivity();
    expect(b.client.activityLobby).toBeNull();
    await eventually(() => expect(b.events.at(-1)).toBe("PLAYER_REMOVED b"));
    await eventually(() => expect(a.events.at(-2)).toBe("PLAYER_REMOVED b"));
    expect(a.events.at(-1)).toMatch(/^PHASE_WAIT_PAUSED (59|60)/);
    // Out of the lobby: a ready has nowhere to go, a second leave is a no-op success.
    expect(await refusal(b.client.activityReady())).toBe("NOT_IN_LOBBY");
    await b.client.leaveActivity();
  });

  it("joining another activity leaves the first", async () => {
    node = await startTestNode({ activitiesFile: activitiesFile() });
    const [a, b] = [await player("a"), await player("b")];
    await a.client.joinActivity("race");
    await b.client.joinActivity("race");
    const { lobby } = await a.client.joinActivity("duo");
    expect(lobby).toBe("activityLobby/duo/1");
    await eventually(() => expect(b.events).toContain("PLAYER_REMOVED a"));
    await eventually(() => expect(a.client.activityLobby).toBe(lobby));
    // The ready goes to the new lobby, where a is alone.
    await a.client.activityReady();
    await eventually(() => expect(a.events.at(-1)).toBe("PLAYER_READY a"));
    expect(b.events).not.toContain("PLAYER_READY a");
  });

  it("a player is in a private lobby or an activity lobby, never both", async () => {
    node = await startTestNode({ activitiesFile: activitiesFile() });
    const [a, b] = [await player("a"), await player("b")];
    await a.client.create();
    const left = a.client.next("left");
    await a.client.joinActivity("race");
    await left;
    await b.client.joinActivity("race");
    await eventually(() => expect(b.events).toContain("PLAYER_ADDED a"));
    const { code } = await b.client.create();
    await eventually(() => expect(b.events.at(-1)).toBe("PLAYER_REMOVED b"));
    await a.client.join(code);
    await eventually(() => expect(lobbyOf(b.client).members.map((m) => m.player)).toEqual(["b", "a"]));
    await eventually(() => expect(a.events.at(-1)).toBe("PLAYER_REMOVED a"));
  });

  it("a dropped session keeps its place and gets the full picture again when it resumes", async () => {
    node = await startTestNode({ activitiesFile: activitiesFile() });
    const [a, b] = [await player("a"), await player("b")];
    await a.client.joinActivity("race");
    await a.client.activityReady();
    await b.client.joinActivity("race");
    await eventually(() => expect(b.events).toHaveLength(4));
    const count = b.events.length;
    b.client.dropConnection();
    await eventually(() => expect(b.events.length).toBeGreaterThan(count + 3));
    expect(b.events.slice(count, count + 3)).toEqual(["PLAYER_ADDED b", "PLAYER_ADDED a", "PLAYER_READY a"]);
    expect(b.events[count + 3]).toMatch(/^PHASE_WAIT_READY /);
    expect(a.events).not.toContain("PLAYER_REMOVED b");
  });

  it("refuses an activity that is not configured with NOT_FOUND", async () => {
    node = await startTestNode({ activitiesFile: activitiesFile() });
    const a = await player("a");
    expect(await refusal(a.client.joinActivity("survival"))).toBe("NOT_FOUND");
    expect(await refusal(a.client.joinActivity("no/such"))).toBe("INVALID");
  });
});
