import { describe, expect, it } from "vitest";
import { runChaos, summaryText } from "../../ops/chaos/index.ts";

/**
 * `foyer chaos` as a test: three node processes and a 3-server NATS cluster under SDK bots for 55 s, with
 * seed 2's schedule — a SIGSTOP past the failure timeout, a drain, kill -9s of nodes (each restarted under
 * its node id) and a kill -9 of a nats-server — then healed, settled and audited, each node's drain team
 * (bots that join lobbies as their node drains) among the bots, with bots of every lobby kind: private
 * lobbies (data, member data, chat, kicks with bans, the lock, quick joins) and their rooms, the `race`
 * activity's countdown lobbies and their rooms, and the `CursorPartyV2` queue's matched lobbies. A fault that finds its
 * node still away (a drained node restarting, say) waits, so the last kill may fall after the run's end:
 * the test asks for at least four faults applied, two of them kills.
 */
describe("chaos on a fleet of three node processes", () => {
  it("loses no acknowledged change and no lobby, hears no old owner, strands or silences no client", async () => {
    const lines: string[] = [];
    const result = await runChaos({
      nodes: 3,
      nats: 3,
      seconds: 55,
      faults: 6,
      seed: 2,
      bots: 18,
      print: (line) => lines.push(line),
    });
    const { summary } = result;
    const story = `${lines.join("\n")}\n${summaryText(summary, result.report, result.journal)}`;
    expect(summary.kills, story).toBeGreaterThanOrEqual(2);
    expect(summary.stops, story).toBeGreaterThanOrEqual(1);
    expect(summary.kills + summary.stops + summary.natsKills + summary.drains, story).toBeGreaterThanOrEqual(
      4,
    );
    expect(summary.acked, story).toBeGreaterThan(0);
    // Every lobby kind was played, not only private lobbies.
    const acked = (kind: string): number =>
      result.journal.ops.filter((op) => op.kind === kind && op.outcome === "acked").length;
    expect(
      [
        "setLobbyData",
        "setMemberData",
        "chat",
        "quickJoin",
        "joinActivity",
        "findLobby",
        "leaveMatched",
      ].filter((kind) => acked(kind) === 0),
      story,
    ).toEqual([]);
    // The one-voice audit read the snapshot writes of every snapshot bucket, not of a bucket nobody writes.
    expect(summary.snapshotWrites, story).toBeGreaterThan(0);
    expect(
      {
        lostAcks: summary.lostAcks,
        lostLobbies: summary.lostLobbies,
        dualOwners: summary.dualOwners,
        strandedClients: summary.strandedClients,
        orderViolations: summary.orderViolations,
        unheardChanges: summary.unheardChanges,
        lostDataChanges: summary.lostDataChanges,
        bannedMembers: summary.bannedMembers,
        overfilled: summary.overfilled,
        doubleSeated: summary.doubleSeated,
      },
      story,
    ).toEqual({
      lostAcks: 0,
      lostLobbies: 0,
      dualOwners: 0,
      strandedClients: 0,
      orderViolations: 0,
      unheardChanges: 0,
      lostDataChanges: 0,
      bannedMembers: 0,
      overfilled: 0,
      doubleSeated: 0,
    });
    expect(summary.hearingChecked, story).toBeGreaterThan(0);
    expect(summary.dataChecked, story).toBeGreaterThan(0);
  }, 240_000);
});
