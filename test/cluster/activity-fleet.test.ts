import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ActivityEventView, ActivityTransferView, FoyerClient } from "../../gateway/client/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { eventually, refusal } from "../support/node.ts";
import { useInProcessFleet } from "../support/process-fleet.ts";

/**
 * Activity lobbies in a fleet (docs/activity.md, "In a fleet"): three in-process nodes over a real
 * 3-server NATS cluster. The directory `activity/<id>` is asked over NATS from whichever gateway a player
 * uses; its lobbies live on the directory's node, and every player is redirected there (`redirect`,
 * reason `activity`), so all of them end up in one lobby whose countdown and start they all see. The
 * start sends them to one room with a token each, which the room checks on arrival.
 */

const testActivities = {
  activities: [
    // Three players are the minimum; the countdown is short, so the test waits for a real start.
    {
      id: "trio",
      map: "1203",
      minTeams: 3,
      maxTeams: 4,
      minTeamSize: 1,
      maxTeamSize: 1,
      waitTime: 4,
      startDelay: 1,
    },
  ],
};

function activitiesFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), "foyer-activity-fleet-")), "activities.json");
  writeFileSync(path, JSON.stringify(testActivities));
  return path;
}

const fleet = useInProcessFleet(["n1", "n2", "n3"], () => ({ activitiesFile: activitiesFile() }));
const { nodes } = fleet;

/** The node started as `n<i>`. */
function nodeNamed(id: string): RunningNode {
  const node = nodes[Number(id.slice(1)) - 1];
  if (node === undefined) throw new Error(`no node ${id}`);
  return node;
}

interface Player {
  readonly id: string;
  readonly client: FoyerClient;
  /** Every `activity` event, as `EVENT player|time`. */
  readonly events: string[];
  readonly transfers: ActivityTransferView[];
  /** The node of every welcome, in order. */
  readonly landings: string[];
}

function line(frame: ActivityEventView): string {
  return "time" in frame ? `${frame.event} ${frame.time}` : `${frame.event} ${frame.player}`;
}

async function player(node: RunningNode, id: string): Promise<Player> {
  // The first welcome comes before a listener can be added: its node is the one connected to.
  const first = `n${nodes.indexOf(node) + 1}`;
  const client = await fleet.connect(node, id);
  const events: string[] = [];
  const transfers: ActivityTransferView[] = [];
  const landings: string[] = [first];
  client.on("activity", (frame) => events.push(line(frame)));
  client.on("activityTransfer", (frame) => transfers.push(frame));
  client.on("connected", (info) => landings.push(info.node));
  return { id, client, events, transfers, landings };
}

describe("activity lobbies in a fleet of three nodes", () => {
  it("players joining through three gateways share one lobby on its owner, count down and go to one room", async () => {
    const [n1, n2, n3] = nodes as [RunningNode, RunningNode, RunningNode];
    const alice = await player(n1, "fleet-alice");
    const bob = await player(n2, "fleet-bob");
    const carol = await player(n3, "fleet-carol");

    const { lobby } = await alice.client.joinActivity("trio");
    expect(lobby).toBe("activityLobby/trio/1");
    expect((await bob.client.joinActivity("trio")).lobby).toBe(lobby);
    expect((await carol.client.joinActivity("trio")).lobby).toBe(lobby);

    // Wherever the directory was first asked, its lobby's node is where everyone ends up.
    const owner = alice.landings.at(-1);
    expect(["n1", "n2", "n3"]).toContain(owner);
    for (const p of [alice, bob, carol]) expect(p.landings.at(-1)).toBe(owner);
    // The two gateways that were not the owner redirected their players (once each).
    for (const p of [alice, bob, carol]) expect(p.landings).toHaveLength(p.landings[0] === owner ? 1 : 2);

    // Carol brought the minimum: everyone hears the countdown start (alice and bob after carol's line).
    await eventually(() =>
      expect(carol.events).toEqual([
        "PLAYER_ADDED fleet-carol",
        "PLAYER_ADDED fleet-alice",
        "PLAYER_ADDED fleet-bob",
        "PHASE_WAIT_READY 4",
      ]),
    );
    await eventually(() =>
      expect(alice.events.slice(-2)).toEqual(["PLAYER_ADDED fleet-carol", "PHASE_WAIT_READY 4"]),
    );
    await eventually(() =>
      expect(bob.events.slice(-2)).toEqual(["PLAYER_ADDED fleet-carol", "PHASE_WAIT_READY 4"]),
    );

    // At 0 all three go to one room, each with a token of its own, on the lobby's node.
    await eventually(() => {
      for (const p of [alice, bob, carol]) expect(p.transfers).toHaveLength(1);
    }, 15_000);
    const [a, b, c] = [alice, bob, carol].map((p) => p.transfers[0]!);
    expect(b!.room).toBe(a!.room);
    expect(c!.room).toBe(a!.room);
    expect(new Set([a!.token, b!.token, c!.token]).size).toBe(3);
    const ownerNode = nodeNamed(owner!);
    for (const t of [a, b, c]) expect(t!.url).toBe(ownerNode.url);

    // The room checks tokens: another player's token is refused and changes nothing.
    expect(await refusal(alice.client.joinRoom(a!.room, undefined, b!.token))).toBe("UNAUTHORIZED");
    expect(await refusal(alice.client.joinRoom(a!.room))).toBe("UNAUTHORIZED");
    // With its own token each player takes its seat, and leaves the activity lobby.
    for (const [p, t] of [
      [alice, a],
      [bob, b],
      [carol, c],
    ] as const) {
      const seated = await p.client.enterActivityRoom(t!);
      expect(seated.room).toBe(a!.room);
    }
    // Nobody heard a PLAYER_REMOVED: a started lobby sees its players off silently.
    for (const p of [alice, bob, carol]) {
      expect(p.events.some((e) => e.startsWith("PLAYER_REMOVED"))).toBe(false);
    }
    // The last player out stopped the lobby: a new join of the activity opens the next one.
    const dave = await player(n1, "fleet-dave");
    await eventually(async () => {
      expect((await dave.client.joinActivity("trio")).lobby).toBe("activityLobby/trio/2");
    }, 10_000);
  }, 90_000);

  it("joining a private lobby on another node takes the player out of its activity lobby", async () => {
    const [n1, n2, n3] = nodes as [RunningNode, RunningNode, RunningNode];
    const erin = await player(n1, "fleet-erin");
    const frank = await player(n2, "fleet-frank");
    const { lobby } = await erin.client.joinActivity("trio");
    await frank.client.joinActivity("trio");
    await eventually(() => expect(erin.events).toContain("PLAYER_ADDED fleet-frank"));
    // A private lobby created on another node than the activity lobby's, if there is one.
    const owner = erin.landings.at(-1);
    const other = [n1, n2, n3].find((n) => n !== nodeNamed(owner!))!;
    const host = await player(other, "fleet-host");
    const { code } = await host.client.create();
    await frank.client.join(code);
    // The registry told the activity lobby: everyone hears frank leave, frank included.
    // (dave from the first case waits there too: frank's leave pauses their countdown.)
    await eventually(() => expect(erin.events).toContain("PLAYER_REMOVED fleet-frank"), 10_000);
    await eventually(() => expect(frank.client.lobby?.members.map((m) => m.player)).toContain("fleet-frank"));
    expect(lobby.startsWith("activityLobby/trio/")).toBe(true);
    // And back: joining the activity again takes frank out of the private lobby.
    await frank.client.joinActivity("trio");
    await eventually(
      () => expect(host.client.lobby?.members.map((m) => m.player)).toEqual(["fleet-host"]),
      10_000,
    );
  }, 90_000);
});
