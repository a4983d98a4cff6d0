import { describe, expect, it } from "vitest";
import type { FinalView, LobbyFacts, OpRecord } from "../../ops/chaos/index.ts";
import { auditFinalState } from "../../ops/chaos/state-audit.ts";

/**
 * The host a lobby's acknowledged `makeHost`s promise, when the player they name was leaving at the time:
 * its join of another lobby (or its leave) was sent before the `makeHost` and answered after it, so the
 * lobby may have handed the role on once it left (protocol.md, `leave`). The audit must not count that,
 * and must still count a host the lobby lost with nobody leaving.
 */

function opsOf(
  rows: [string, OpRecord["kind"], string | null, OpRecord["arg"], number, number][],
): OpRecord[] {
  return rows.map(([bot, kind, code, arg, sentAt, endedAt], i) => ({
    id: i + 1,
    bot,
    kind,
    code,
    arg,
    sentAt,
    endedAt,
    outcome: "acked",
    error: null,
  }));
}

function facts(code: string, host: string, players: string[]): LobbyFacts & { epoch: number; seq: number } {
  const members = players.map((player) => ({ player, ready: false, connected: true }));
  return { code, host, members, epoch: 9, seq: 40 };
}

/** bot-3 in another lobby at the end (when it left), bot-4 alone in YBKNDB and its host. */
function finalViews(bot3In: "YBKNDB" | "L5MLYX"): FinalView[] {
  const ybkndb =
    bot3In === "YBKNDB" ? facts("YBKNDB", "bot-4", ["bot-3", "bot-4"]) : facts("YBKNDB", "bot-4", ["bot-4"]);
  const bot3Lobby = bot3In === "YBKNDB" ? ybkndb : facts("L5MLYX", "bot-9", ["bot-9", "bot-3"]);
  return [
    { bot: "bot-3", connected: true, closed: false, lobby: bot3Lobby },
    { bot: "bot-4", connected: true, closed: false, lobby: ybkndb },
  ];
}

const opening: [string, OpRecord["kind"], string | null, OpRecord["arg"], number, number][] = [
  ["bot-3", "create", "YBKNDB", null, 0, 10],
  ["bot-4", "quickJoin", "YBKNDB", null, 20, 30],
  ["bot-3", "makeHost", "YBKNDB", "bot-4", 40, 50],
];

describe("the chaos audit's expected host", () => {
  it("is uncertain when the player a makeHost named was joining another lobby meanwhile", () => {
    // bot-3's join of L5MLYX is in flight (sent 100, answered 400) when bot-4 hands it the role (250–260):
    // the makeHost found bot-3 still a member, and the join then took it out, the role going to bot-4.
    const ops = opsOf([
      ...opening,
      ["bot-3", "join", "L5MLYX", null, 100, 400],
      ["bot-4", "makeHost", "YBKNDB", "bot-3", 250, 260],
    ]);
    const findings = auditFinalState(ops, finalViews("L5MLYX"), new Map());
    expect(findings.lostAcks).toEqual([]);
  });

  it("is uncertain when the named player's own leave was in flight, answered before the makeHost", () => {
    const ops = opsOf([
      ...opening,
      ["bot-3", "leave", "YBKNDB", null, 240, 262],
      ["bot-4", "makeHost", "YBKNDB", "bot-3", 250, 265],
    ]);
    const views = finalViews("L5MLYX").map((v) => (v.bot === "bot-3" ? { ...v, lobby: null } : v));
    expect(auditFinalState(ops, views, new Map()).lostAcks).toEqual([]);
  });

  it("still counts a host the lobby lost while the named player stayed", () => {
    const ops = opsOf([...opening, ["bot-4", "makeHost", "YBKNDB", "bot-3", 250, 260]]);
    const findings = auditFinalState(ops, finalViews("YBKNDB"), new Map());
    expect(findings.lostAcks).toEqual(["YBKNDB: host bot-3 after #4 makeHost, served bot-4"]);
  });

  it("still counts it when the named player's join elsewhere was answered before the makeHost was sent", () => {
    // bot-3 left for L5MLYX, came back (join YBKNDB), and was handed the role: that hand-over must hold.
    const ops = opsOf([
      ...opening,
      ["bot-3", "join", "L5MLYX", null, 100, 120],
      ["bot-3", "join", "YBKNDB", null, 130, 140],
      ["bot-4", "makeHost", "YBKNDB", "bot-3", 250, 260],
    ]);
    const findings = auditFinalState(ops, finalViews("YBKNDB"), new Map());
    expect(findings.lostAcks).toEqual(["YBKNDB: host bot-3 after #6 makeHost, served bot-4"]);
  });
});
