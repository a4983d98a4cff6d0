import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { connectNats, decodeSnapshot, NatsKvStore } from "../../fleet/index.ts";
import type { ActivityTransferView, FoyerClient } from "../../gateway/client/index.ts";
import { runDrain, type DrainSummary } from "../../ops/admin/index.ts";
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

interface Heard {
  readonly line: string;
  readonly event: string;
  readonly time?: number;
  /** The test's clock when it arrived (the nodes run on the same machine, so on the same clock). */
  readonly at: number;
}

interface Player {
  readonly id: string;
  readonly client: FoyerClient;
  readonly heard: Heard[];
  readonly transfers: { frame: ActivityTransferView; at: number }[];
  /** The node of every welcome. */
  readonly landings: string[];
}

async function player(id: string, first: string): Promise<Player> {
  const client = await fleet.player(id, first);
  const p: Player = { id, client, heard: [], transfers: [], landings: [`n${urls.indexOf(first) + 1}`] };
  client.on("activity", (frame) => {
    const at = Date.now();
    if ("time" in frame) {
      p.heard.push({ line: `${frame.event} ${frame.time}`, event: frame.event, time: frame.time, at });
    } else p.heard.push({ line: `${frame.event} ${frame.player}`, event: frame.event, at });
  });
  client.on("activityTransfer", (frame) => p.transfers.push({ frame, at: Date.now() }));
  client.on("connected", (info) => p.landings.push(info.node));
  return p;
}

/** Clock slack between the test's Date.now and a node's (one machine; whole milliseconds). */
const slackMs = 2;

/**
 * Where the countdown ends as the lobby tells it to a player, bracketed: the player joins again (the
 * lobby answers a repeated join with its full picture), and the `PHASE_WAIT_READY` of that picture was
 * computed between the request and its answer, so its deadline lies in [sent + time, answered + time].
 */
async function bracket(p: Player): Promise<{ low: number; high: number }> {
  const from = p.heard.length;
  const sent = Date.now();
  await p.client.joinActivity("duo");
  const answered = Date.now();
  let time = -1;
  await eventually(() => {
    const picture = p.heard.slice(from);
    expect(picture[0]?.line).toBe(`PLAYER_ADDED ${p.id}`);
    const phase = picture.find((h) => h.event === "PHASE_WAIT_READY");
    expect(phase).toBeDefined();
    time = phase!.time!;
  }, 10_000);
  return { low: sent + time * 1000 - slackMs, high: answered + time * 1000 + slackMs };
}

/** The lobby's stored snapshot: its epoch and its countdown's deadline (null while held). */
async function stored(): Promise<{ epoch: number; deadline: number | null } | null> {
  const nc = await connectNats({ servers: fleet.nats().urls });
  try {
    const entry = await (await new NatsKvStore(nc).bucket("lobbies")).get(LOBBY);
    if (entry === null) return null;
    const snapshot = decodeSnapshot(entry.value);
    const stage = (snapshot.state as { stage: { countdown?: { running: boolean; deadline?: number } } })
      .stage;
    const countdown = stage.countdown;
    return { epoch: snapshot.epoch, deadline: countdown?.running === true ? countdown.deadline! : null };
  } finally {
    await nc.close();
  }
}

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
    let before: { epoch: number; deadline: number | null } | null = null;
    await eventually(async () => {
      before = await stored();
      expect(before?.deadline).not.toBeNull();
    }, 10_000);
    const deadline = before!.deadline!;
    for (const p of [alice, bob]) {
      const seen = await bracket(p);
      expect(deadline).toBeGreaterThanOrEqual(seen.low);
      expect(deadline).toBeLessThanOrEqual(seen.high);
    }

    // Drain the lobby's node, as an operator would.
    const drainedAt = Date.now();
    const lines: string[] = [];
    expect(
      await runDrain(owner, { admin: admins[ownerIndex]!, json: true }, (text) => lines.push(text)),
    ).toBe(0);
    expect(JSON.parse(lines.at(-1)!) as DrainSummary).toMatchObject({ state: "done", left: 0 });
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
        expect(fresh).toBeGreaterThanOrEqual(0);
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
    let after: { epoch: number; deadline: number | null } | null = null;
    await eventually(async () => {
      after = await stored();
      expect(after?.epoch).toBeGreaterThan(before!.epoch);
    }, 10_000);
    expect(after!.deadline).toBe(deadline);
    for (const p of [alice, bob]) {
      const seen = await bracket(p);
      expect(deadline).toBeGreaterThanOrEqual(seen.low);
      expect(deadline).toBeLessThanOrEqual(seen.high);
    }

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
