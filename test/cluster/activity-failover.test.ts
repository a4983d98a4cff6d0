import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ActivityTransferView, FoyerClient } from "../../gateway/client/index.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * An activity lobby across a kill -9 of its node (docs/activity.md, "Restore after a failover"): three
 * node processes over a 3-server NATS cluster. The survivor that takes the lobby over serves it with its
 * players, and its countdown keeps its absolute deadline: the seconds the node was dead still count.
 */

const failureTimeoutMs = 3_000;
/** Long enough for the takeover to happen well inside the countdown. */
const waitTime = 20;

function activitiesFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), "foyer-activity-failover-")), "activities.json");
  const duo = { id: "duo", map: "1203", minTeams: 2, maxTeams: 4, minTeamSize: 1, maxTeamSize: 1 };
  writeFileSync(path, JSON.stringify({ activities: [{ ...duo, waitTime, startDelay: 1 }] }));
  return path;
}

const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 3,
  flags: { "failure-timeout-ms": String(failureTimeoutMs), "activities-file": activitiesFile() },
});
const { nodes, urls } = fleet;

interface Player {
  readonly client: FoyerClient;
  /** `activity` events as `EVENT player|time`, with the wall time they arrived. */
  readonly events: { line: string; time?: number; at: number }[];
  readonly transfers: { frame: ActivityTransferView; at: number }[];
  /** The node of every welcome. */
  readonly landings: string[];
}

async function player(id: string, first: string): Promise<Player> {
  const client = await fleet.player(id, first);
  const p: Player = { client, events: [], transfers: [], landings: [`n${urls.indexOf(first) + 1}`] };
  client.on("activity", (frame) => {
    const at = Date.now();
    if ("time" in frame) p.events.push({ line: `${frame.event} ${frame.time}`, time: frame.time, at });
    else p.events.push({ line: `${frame.event} ${frame.player}`, at });
  });
  client.on("activityTransfer", (frame) => p.transfers.push({ frame, at: Date.now() }));
  client.on("connected", (info) => p.landings.push(info.node));
  return p;
}

/** When the countdown ends, as a player reads its last `PHASE_WAIT_READY` (arrival + time left). */
function deadlineSeen(p: Player, after = 0): number | undefined {
  const last = p.events.filter((e) => e.at >= after && e.line.startsWith("PHASE_WAIT_READY")).at(-1);
  return last === undefined ? undefined : last.at + last.time! * 1000;
}

describe("an activity lobby across a kill -9 of its node", () => {
  it("is served again by a survivor with its players, and its countdown ends at the same deadline", async () => {
    const alice = await player("af-alice", urls[0]!);
    const bob = await player("af-bob", urls[1]!);
    const { lobby } = await alice.client.joinActivity("duo");
    expect((await bob.client.joinActivity("duo")).lobby).toBe(lobby);
    await eventually(() => {
      expect(deadlineSeen(alice)).toBeDefined();
      expect(deadlineSeen(bob)).toBeDefined();
    }, 10_000);
    const deadline = deadlineSeen(bob)!;
    const owner = alice.landings.at(-1)!;
    expect(bob.landings.at(-1)).toBe(owner);
    const victim = nodes[Number(owner.slice(1)) - 1]!;

    victim.child.kill("SIGKILL");
    await victim.exited;
    const killedAt = Date.now();

    // Both come back on survivors and hear the lobby's full picture again, from the new owner.
    await eventually(() => {
      for (const [me, other] of [
        [alice, "af-bob"],
        [bob, "af-alice"],
      ] as const) {
        const since = me.events.filter((e) => e.at >= killedAt).map((e) => e.line);
        const self = me === alice ? "af-alice" : "af-bob";
        expect(since.slice(0, 2)).toEqual([`PLAYER_ADDED ${self}`, `PLAYER_ADDED ${other}`]);
        expect(since[2]).toMatch(/^PHASE_WAIT_READY /);
      }
    }, failureTimeoutMs + 15_000);
    for (const p of [alice, bob]) expect(p.landings.at(-1)).not.toBe(owner);
    expect(alice.landings.at(-1)).toBe(bob.landings.at(-1));
    // The deadline held: the time left the new owner announces ends where the first one did (the
    // seconds the node was dead counted), give or take delivery delays.
    for (const p of [alice, bob]) {
      expect(Math.abs(deadlineSeen(p, killedAt)! - deadline)).toBeLessThan(1_500);
    }
    expect(deadline - Date.now()).toBeGreaterThan(0);

    // At that deadline both go to one room, on the new owner, each with its own token.
    await eventually(() => {
      expect(alice.transfers).toHaveLength(1);
      expect(bob.transfers).toHaveLength(1);
    }, waitTime * 1000);
    const [a, b] = [alice.transfers[0]!, bob.transfers[0]!];
    expect(b.frame.room).toBe(a.frame.room);
    expect(a.frame.token).not.toBe(b.frame.token);
    expect(Math.abs(a.at - deadline)).toBeLessThan(1_500);
    expect(a.frame.url).not.toBe(urls[Number(owner.slice(1)) - 1]);
    for (const [p, t] of [
      [alice, a],
      [bob, b],
    ] as const) {
      expect((await p.client.enterActivityRoom(t.frame)).room).toBe(a.frame.room);
    }
  }, 120_000);
});
