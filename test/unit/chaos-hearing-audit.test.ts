import { describe, expect, it } from "vitest";
import { auditHearing } from "../../ops/chaos/hearing-audit.ts";
import type { ConnectionEvent, HeardFrame, OpRecord, SnapshotWrite } from "../../ops/chaos/index.ts";
import { writtenActivityLobby } from "../../ops/chaos/kind-states.ts";
import { writtenLobby } from "../../ops/chaos/snapshot-history.ts";

/** A lobby write of ABC at (epoch, seq), seen at `at`, listing `members` (all connected unless named away). */
function write(
  epoch: number,
  seq: number,
  at: number,
  members: string[],
  ready = false,
  away: string[] = [],
) {
  const state = {
    code: "ABC",
    host: members[0] ?? null,
    room: null,
    members: members.map((player) => ({ player, ready, connected: !away.includes(player), inRoom: false })),
  };
  return {
    key: "lobby/ABC",
    revision: at,
    epoch,
    seq,
    at,
    lobby: writtenLobby(state),
  } satisfies SnapshotWrite;
}

function heard(bot: string, epoch: number, seq: number, at: number): HeardFrame {
  return { bot, key: "lobby/ABC", epoch, seq, digest: "", at, lobby: null };
}

const connectedAtStart = (bot: string): ConnectionEvent => ({ bot, at: 0, connected: true, node: "n1" });

/** The run goes on past the last window, so every change's time is up. */
const lateFrame = heard("x", 99, 99, 60_000);

describe("the hearing audit: every member hears each change of its lobby within 10 s", () => {
  const writes = [
    write(5, 1, 1_000, ["a"]),
    write(5, 2, 2_000, ["a", "b"]),
    write(5, 3, 3_000, ["a", "b"], true),
  ];
  const connections = [connectedAtStart("a"), connectedAtStart("b")];

  it("finds nothing when each member heard each change, or a later frame", () => {
    const frames = [heard("a", 5, 1, 1_010), heard("a", 5, 3, 3_010), heard("b", 6, 1, 4_000), lateFrame];
    const report = auditHearing(writes, frames, connections, []);
    expect(report.unheardChanges).toEqual([]);
    expect(report.checked).toBe(5);
  });

  it("counts a connected member that heard nothing of its lobby after joining (left behind by a move)", () => {
    const frames = [heard("a", 5, 1, 1_010), heard("a", 5, 3, 3_010), heard("b", 5, 2, 2_010), lateFrame];
    expect(auditHearing(writes, frames, connections, []).unheardChanges).toEqual([
      "b lobby/ABC: change 5/3 not heard within 10000 ms (last heard 5/2)",
    ]);
  });

  it("does not count a frame of an older owner, nor one heard too late", () => {
    const frames = [heard("a", 5, 1, 1_010), heard("a", 4, 9, 3_010), heard("b", 5, 3, 14_000), lateFrame];
    expect(auditHearing(writes, frames, connections, []).unheardChanges).toEqual([
      "a lobby/ABC: change 5/2 not heard within 10000 ms (last heard 4/9)",
      "b lobby/ABC: change 5/2 not heard within 10000 ms (nothing heard of it)",
      "a lobby/ABC: change 5/3 not heard within 10000 ms (last heard 4/9)",
      "b lobby/ABC: change 5/3 not heard within 10000 ms (nothing heard of it)",
    ]);
  });

  it("holds no member to it that dropped in the window, was listed away, or was moving to another lobby", () => {
    const frames = [heard("a", 5, 1, 1_010), lateFrame];
    const dropped = [...connections, { bot: "b", at: 2_500, connected: false, node: null }];
    const leaving: OpRecord = {
      id: 1,
      bot: "a",
      kind: "join",
      code: "XYZ",
      arg: null,
      sentAt: 1_500,
      endedAt: 2_500,
      outcome: "acked",
      error: null,
    };
    const aAway = [write(5, 1, 1_000, ["a"]), write(5, 2, 2_000, ["a", "b"], false, ["b"])];
    expect(auditHearing(aAway, frames, connections, []).unheardChanges).toEqual([
      "a lobby/ABC: change 5/2 not heard within 10000 ms (last heard 5/1)",
    ]);
    expect(auditHearing(writes, frames, dropped, [leaving]).unheardChanges).toEqual([]);
  });

  it("takes a write that changed nothing shown (a resync, a seal) for no change", () => {
    const resync = [write(5, 1, 1_000, ["a"]), write(5, 2, 2_000, ["a"]), write(6, 2, 2_500, ["a"])];
    const report = auditHearing(resync, [heard("a", 5, 1, 1_010), lateFrame], [connectedAtStart("a")], []);
    expect(report.unheardChanges).toEqual([]);
    expect(report.checked).toBe(1);
  });

  it("hears an activity lobby's start in the frame each player was sent in that batch, not later", () => {
    const race = (seq: number, at: number, phase: "waiting" | "started") => ({
      key: "activityLobby/race/1",
      revision: at,
      epoch: 7,
      seq,
      at,
      lobby: writtenActivityLobby({
        players: ["a", "b"].map((id) => ({ id, name: id, vehicle: null, ready: true, connected: true })),
        reports: 0,
        stage: phase === "waiting" ? { phase, countdown: { running: false, remainingMs: 0 } } : { phase },
      }),
    });
    const told = (bot: string, seq: number, at: number): HeardFrame => ({
      ...heard(bot, 7, seq, at),
      key: "activityLobby/race/1",
    });
    // The start's batch sends a its transfer at 11 and b its own at 12; the write says 12.
    const writes = [race(10, 1_000, "waiting"), race(12, 2_000, "started")];
    const connections = [connectedAtStart("a"), connectedAtStart("b")];
    const frames = [told("a", 10, 1_010), told("b", 10, 1_010), told("a", 11, 2_010), told("b", 12, 2_010)];
    const report = auditHearing(writes, [...frames, lateFrame], connections, []);
    expect(report.unheardChanges).toEqual([]);
    expect(report.checked).toBe(4);
    // b's transfer lost: it heard nothing of the batch.
    const lost = auditHearing(writes, [...frames.slice(0, 3), lateFrame], connections, []);
    expect(lost.unheardChanges).toEqual([
      "b activityLobby/race/1: change 7/12 not heard within 10000 ms (last heard 7/10)",
    ]);
  });

  it("opens the window of a change whose batch created a room when the owner wrote it again, before sending it", () => {
    // A start: written with the room it is creating at 1 s; the room took 11 s to be stored under faults,
    // and the owner wrote the lobby again without it and sent its frames at 12 s.
    const started = { ...write(5, 2, 1_000, ["a"], true), spawning: true };
    const rewritten = { ...write(5, 2, 12_000, ["a"], true), revision: 12_001 };
    const writes = [write(5, 1, 500, ["a"]), started, rewritten];
    const connections = [connectedAtStart("a")];
    const frames = [heard("a", 5, 1, 510), heard("a", 5, 2, 12_010), lateFrame];
    expect(auditHearing(writes, frames, connections, []).unheardChanges).toEqual([]);
    // Not heard within 10 s of that second write: unheard.
    const late = [heard("a", 5, 1, 510), heard("a", 5, 2, 22_500), lateFrame];
    expect(auditHearing(writes, late, connections, []).unheardChanges).toEqual([
      "a lobby/ABC: change 5/2 not heard within 10000 ms (last heard 5/1)",
    ]);
  });
});
