import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  activityPlayer,
  claimOwner,
  snapshotStored,
  clockSlackMs,
  expectHeardDeadline,
  storedCountdown,
  type ActivityPlayer,
  type StoredCountdown,
} from "../support/activity-players.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * An activity lobby across a kill -9 of its node (docs/activity.md, "Restore after a failover"): three
 * node processes over a 3-server NATS cluster. The survivor that takes the lobby over serves it with its
 * players, and its countdown keeps its absolute deadline: the seconds the node was dead still count.
 * A lobby killed after its start leaves transfers that name a dead node: joining the room through any
 * survivor sends the player on to the survivor that took the room over (`redirect`, reason `room`).
 */

const failureTimeoutMs = 3_000;
/** Long enough for the takeover to happen well inside the countdown. */
const waitTime = 30;

function activitiesFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), "foyer-activity-failover-")), "activities.json");
  const duo = { id: "duo", map: "1203", minTeams: 2, maxTeams: 4, minTeamSize: 1, maxTeamSize: 1 };
  // `quick` starts soon: its lobby is killed after the start, with its transfers out.
  const quick = { ...duo, id: "quick", waitTime: 3, startDelay: 1 };
  writeFileSync(path, JSON.stringify({ activities: [{ ...duo, waitTime, startDelay: 1 }, quick] }));
  return path;
}

const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 3,
  flags: { "failure-timeout-ms": String(failureTimeoutMs), "activities-file": activitiesFile() },
});
const { nodes, urls } = fleet;

const player = (id: string, first: string): Promise<ActivityPlayer> => activityPlayer(fleet, id, first);

describe("an activity lobby across a kill -9 of its node", () => {
  it("is served again by a survivor with its players, and its countdown ends at the same deadline", async () => {
    const alice = await player("af-alice", urls[0]!);
    const bob = await player("af-bob", urls[1]!);
    const { lobby } = await alice.client.joinActivity("duo");
    expect((await bob.client.joinActivity("duo")).lobby).toBe(lobby);
    // The deadline as stored, and as both players hear it.
    let before: StoredCountdown | null = null;
    await eventually(async () => {
      before = await storedCountdown(fleet, lobby);
      expect(before?.deadline).not.toBeNull();
    }, 10_000);
    const deadline = before!.deadline!;
    for (const p of [alice, bob]) await expectHeardDeadline(p, "duo", deadline);
    const owner = alice.landings.at(-1)!;
    expect(bob.landings.at(-1)).toBe(owner);
    const victim = nodes[Number(owner.slice(1)) - 1]!;

    victim.child.kill("SIGKILL");
    await victim.exited;
    const killedAt = Date.now();

    // Both come back on survivors and hear the lobby's full picture again, from the new owner.
    await eventually(() => {
      for (const [me, other] of [
        [alice, bob],
        [bob, alice],
      ] as const) {
        const since = me.heard.filter((e) => e.at >= killedAt).map((e) => e.line);
        expect(since.slice(0, 2)).toEqual([`PLAYER_ADDED ${me.id}`, `PLAYER_ADDED ${other.id}`]);
        expect(since[2]).toMatch(/^PHASE_WAIT_READY /);
      }
    }, failureTimeoutMs + 15_000);
    for (const p of [alice, bob]) expect(p.landings.at(-1)).not.toBe(owner);
    expect(alice.landings.at(-1)).toBe(bob.landings.at(-1));
    // The deadline held, the seconds the node was dead included: the new owner stored the same one
    // under its epoch, what it announced ends no earlier (it was sent before it arrived), and what it
    // tells now brackets exactly that deadline.
    let after: StoredCountdown | null = null;
    await eventually(async () => {
      after = await storedCountdown(fleet, lobby);
      expect(after?.epoch).toBeGreaterThan(before!.epoch);
    }, 10_000);
    expect(after!.deadline).toBe(deadline);
    for (const p of [alice, bob]) {
      for (const h of p.heard.filter((x) => x.at >= killedAt && x.event === "PHASE_WAIT_READY")) {
        expect(h.at + h.time! * 1000).toBeGreaterThanOrEqual(deadline - clockSlackMs);
      }
      await expectHeardDeadline(p, "duo", deadline);
    }

    // At that deadline both go to one room, on the new owner, each with its own token.
    await eventually(() => {
      expect(alice.transfers).toHaveLength(1);
      expect(bob.transfers).toHaveLength(1);
    }, waitTime * 1000);
    const [a, b] = [alice.transfers[0]!, bob.transfers[0]!];
    expect(b.frame.room).toBe(a.frame.room);
    expect(a.frame.token).not.toBe(b.frame.token);
    // Not before the deadline (the timer fires at it; the frame arrives after).
    for (const t of [a, b]) expect(t.at).toBeGreaterThanOrEqual(deadline - clockSlackMs);
    expect(a.frame.url).not.toBe(urls[Number(owner.slice(1)) - 1]);
    for (const [p, t] of [
      [alice, a],
      [bob, b],
    ] as const) {
      expect((await p.client.enterActivityRoom(t.frame)).room).toBe(a.frame.room);
    }
  }, 120_000);

  it("a transfer whose node died takes its players to their room, through a survivor that does not own it", async () => {
    fleet.closePlayers();
    // A fourth node, where `quick`'s directory, lobby and room start (its first ask is made there).
    const n4 = fleet.start("n4");
    const n4Url = await n4.url;
    urls.push(n4Url);
    const carol = await player("af-carol", n4Url);
    const dave = await player("af-dave", n4Url);
    const { lobby } = await carol.client.joinActivity("quick");
    expect((await dave.client.joinActivity("quick")).lobby).toBe(lobby);
    await eventually(() => {
      expect(carol.transfers).toHaveLength(1);
      expect(dave.transfers).toHaveLength(1);
    }, 30_000);
    for (const p of [carol, dave]) expect(p.landings).toEqual(["n4"]);
    const transfers = new Map([carol, dave].map((p) => [p, p.transfers[0]!.frame]));
    const room = carol.transfers[0]!.frame.room;
    expect(carol.transfers[0]!.frame.url).toBe(n4Url);
    // A transfer goes out only once its room is stored (docs/design.md, "Spawns before what they cause"),
    // so the kill that follows at once cannot leave the players a room that was never written.
    expect(await snapshotStored(fleet, `room/${room}`)).toBe(true);

    n4.child.kill("SIGKILL");
    await n4.exited;
    for (const p of [carol, dave]) p.client.close();

    // A survivor takes the room over; the other survivor is the stale way in.
    const survivors = nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null);
    expect(survivors).toHaveLength(2);
    let roomOwner = "";
    await eventually(async () => {
      roomOwner = (await claimOwner(fleet, `room/${room}`)) ?? "";
      expect(survivors.map((n) => n.id)).toContain(roomOwner);
    }, failureTimeoutMs + 30_000);
    const stale = survivors.find((n) => n.id !== roomOwner)!;
    const staleUrl = await stale.url;

    // Each comes back on the stale survivor with the transfer it holds, and enters the room from there.
    const back = await Promise.all(["af-carol", "af-dave"].map((id) => player(id, staleUrl)));
    for (const [i, p] of back.entries()) {
      expect((await p.client.enterActivityRoom(transfers.get([carol, dave][i]!)!)).room).toBe(room);
    }
    await eventually(() => {
      for (const p of back) {
        expect(p.landings.at(-1)).toBe(roomOwner);
        expect(p.client.room?.code).toBe(room);
        expect(p.client.room?.seats.map((s) => s.player)).toEqual(["af-carol", "af-dave"]);
      }
    }, 20_000);
    // They were sent there from the stale survivor, and stayed: no trip back to the lobby's node.
    for (const p of back) expect(p.landings).toEqual([stale.id, roomOwner]);
  }, 150_000);
});
