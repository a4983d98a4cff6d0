import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { drainUntilAccepted } from "../../ops/admin/index.ts";
import {
  activityPlayer,
  clockSlackMs as slackMs,
  expectHeardDeadline,
  storedCountdown,
  type ActivityPlayer,
  type StoredCountdown,
} from "../support/activity-players.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * An activity lobby across a drain of its node (docs/activity.md, "In a fleet"): three node processes
 * over a 3-server NATS cluster. Two players count down in a lobby; its node is drained with `foyer drain`.
 * The lobby moves to a peer with both players (told `moved`, they follow), and its countdown keeps its
 * absolute deadline to the millisecond: the store holds the same deadline before and after, and what
 * each player hears before and after brackets that same deadline. At 0 both go to one room on the new
 * node and take their seats.
 */

/** Long enough for a drain under heavy load to end well inside the countdown. */
const waitTime = 40;
const LOBBY = "activityLobby/duo/1";

function activitiesFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), "foyer-activity-drain-")), "activities.json");
  const duo = { id: "duo", map: "1203", minTeams: 2, maxTeams: 4, minTeamSize: 1, maxTeamSize: 1 };
  writeFileSync(path, JSON.stringify({ activities: [{ ...duo, waitTime, startDelay: 5 }] }));
  return path;
}

const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 3,
  flags: { "activities-file": activitiesFile() },
});
const { nodes, urls, admins } = fleet;

const player = (id: string, first: string): Promise<ActivityPlayer> => activityPlayer(fleet, id, first);

describe("an activity lobby across a drain of its node", () => {
  it("moves with its players, keeps its countdown's deadline to the millisecond, and starts at it", async () => {
    const alice = await player("ad-alice", urls[0]!);
    const bob = await player("ad-bob", urls[1]!);
    expect((await alice.client.joinActivity("duo")).lobby).toBe(LOBBY);
    expect((await bob.client.joinActivity("duo")).lobby).toBe(LOBBY);
    await eventually(() => {
      for (const p of [alice, bob]) expect(p.heard.some((h) => h.event === "PHASE_WAIT_READY")).toBe(true);
    }, 10_000);
    const owner = alice.landings.at(-1)!;
    expect(bob.landings.at(-1)).toBe(owner);
    const ownerIndex = Number(owner.slice(1)) - 1;

    // The deadline as stored, and as each player hears it: the same instant.
    let before: StoredCountdown | null = null;
    await eventually(async () => {
      before = await storedCountdown(fleet, LOBBY);
      expect(before?.deadline).not.toBeNull();
    }, 10_000);
    const deadline = before!.deadline!;
    for (const p of [alice, bob]) await expectHeardDeadline(p, "duo", deadline);

    // Drain the lobby's node, as an operator would.
    const drainedAt = Date.now();
    const drained = await drainUntilAccepted(owner, { admin: admins[ownerIndex]! });
    expect(drained.summary).toMatchObject({ state: "done", left: 0 });
    expect(drained.code).toBe(0);
    expect(await nodes[ownerIndex]!.exited).toBe(0);
    // The drain ended inside the countdown (else this test proves nothing about it).
    expect(Date.now()).toBeLessThan(deadline);

    // Both followed the lobby to one peer and heard its full picture from there: still counting.
    await eventually(() => {
      expect(alice.landings.at(-1)).not.toBe(owner);
      expect(bob.landings.at(-1)).toBe(alice.landings.at(-1));
      for (const [me, other] of [
        [alice, bob],
        [bob, alice],
      ] as const) {
        const since = me.heard.filter((h) => h.at >= drainedAt).map((h) => h.line);
        const fresh = since.lastIndexOf(`PLAYER_ADDED ${me.id}`);
        expect(since).toContain(`PLAYER_ADDED ${me.id}`);
        expect(since[fresh + 1]).toBe(`PLAYER_ADDED ${other.id}`);
        expect(since[fresh + 2]).toMatch(/^PHASE_WAIT_READY /);
      }
    }, 30_000);
    const newOwner = alice.landings.at(-1)!;
    // Nobody left, and the countdown never paused, reset or stretched.
    for (const p of [alice, bob]) {
      const lines = p.heard.map((h) => h.event);
      expect(lines).not.toContain("PLAYER_REMOVED");
      expect(lines).not.toContain("PHASE_WAIT_PAUSED");
      // What the new owner announced ends no earlier than the deadline (it was sent before it arrived)…
      for (const h of p.heard.filter((x) => x.at >= drainedAt && x.event === "PHASE_WAIT_READY")) {
        expect(h.at + h.time! * 1000).toBeGreaterThanOrEqual(deadline - slackMs);
      }
    }
    // …and exactly at it: stored under the new owner's epoch with the same deadline, and heard as such.
    let after: StoredCountdown | null = null;
    await eventually(async () => {
      after = await storedCountdown(fleet, LOBBY);
      expect(after?.epoch).toBeGreaterThan(before!.epoch);
    }, 10_000);
    expect(after!.deadline).toBe(deadline);
    for (const p of [alice, bob]) await expectHeardDeadline(p, "duo", deadline);

    // At the deadline (never before it) both go to one room on the new owner, each with its own token,
    // and take their seats there.
    await eventually(
      () => {
        expect(alice.transfers).toHaveLength(1);
        expect(bob.transfers).toHaveLength(1);
      },
      waitTime * 1000 + 30_000,
    );
    const [a, b] = [alice.transfers[0]!, bob.transfers[0]!];
    expect(b.frame.room).toBe(a.frame.room);
    expect(a.frame.token).not.toBe(b.frame.token);
    for (const t of [a, b]) {
      expect(t.at).toBeGreaterThanOrEqual(deadline - slackMs);
      expect(t.frame.url).toBe(urls[Number(newOwner.slice(1)) - 1]);
    }
    for (const [p, t] of [
      [alice, a],
      [bob, b],
    ] as const) {
      expect((await p.client.enterActivityRoom(t.frame)).room).toBe(a.frame.room);
    }
    await eventually(() => {
      for (const p of [alice, bob]) {
        expect(p.client.room?.code).toBe(a.frame.room);
        expect(p.client.room?.seats.map((s) => s.player)).toEqual([alice.id, bob.id]);
      }
    }, 10_000);
  }, 150_000);
});
