import { describe, expect, it } from "vitest";
import { encodeSnapshot, orphanTombstone, type KvEntry } from "../../fleet/index.ts";
import { auditData } from "../../ops/chaos/data-audit.ts";
import { snapshotWriteOf } from "../../ops/chaos/snapshot-history.ts";

/**
 * How the chaos audits read a snapshot bucket's entries: a lobby's snapshot is a state of the lobby; a
 * delete and an orphan's tombstone (a takeover found the closed lobby's claim without its snapshot) say
 * the key holds no lobby, so a player its last state listed is not counted in it.
 */

let revision = 0;

function lobbyEntry(code: string, epoch: number, seq: number, members: string[]): KvEntry {
  const state = {
    code,
    version: 1,
    data: {},
    door: { maxMembers: 8, locked: false, passwordHash: null },
    banned: [],
    host: members[0] ?? null,
    room: null,
    members: members.map((player) => ({ player, ready: false, connected: true, inRoom: false, data: {} })),
  };
  const snapshot = {
    ...orphanTombstone(`lobby/${code}`, epoch),
    kind: "lobby",
    seq,
    writeId: `w${seq}`,
    state,
  };
  return { key: `lobby/${code}`, value: encodeSnapshot(snapshot), revision: ++revision, operation: "PUT" };
}

function tombstoneEntry(code: string, epoch: number): KvEntry {
  const value = encodeSnapshot(orphanTombstone(`lobby/${code}`, epoch));
  return { key: `lobby/${code}`, value, revision: ++revision, operation: "PUT" };
}

describe("the chaos watch's reading of snapshot entries", () => {
  it("reads a lobby snapshot's epoch, sequence and members", () => {
    const write = snapshotWriteOf(lobbyEntry("ABC", 4, 2, ["a", "b"]), 1_000);
    expect(write).toMatchObject({ key: "lobby/ABC", epoch: 4, seq: 2, at: 1_000 });
    expect(write.lobby?.members).toEqual([
      { player: "a", connected: true },
      { player: "b", connected: true },
    ]);
  });

  it("reads an orphan's tombstone as no lobby, as a delete", () => {
    const tombstone = snapshotWriteOf(tombstoneEntry("ABC", 9), 2_000);
    expect(tombstone).toMatchObject({ key: "lobby/ABC", epoch: null, seq: null, lobby: null });
    const deleted = snapshotWriteOf(
      { key: "lobby/ABC", value: new Uint8Array(), revision: 7, operation: "DEL" },
      3,
    );
    expect(deleted).toMatchObject({ epoch: null, seq: null, lobby: null });
  });

  it("counts no player in a lobby that closed and whose key a takeover then fenced with a tombstone", () => {
    const writes = [
      lobbyEntry("ABC", 4, 1, ["b"]),
      // The last member left: the snapshot was deleted; its claim outlived its node, and a takeover
      // found the claim with no snapshot.
      { key: "lobby/ABC", value: new Uint8Array(), revision: ++revision, operation: "DEL" as const },
      tombstoneEntry("ABC", 9),
      lobbyEntry("XYZ", 5, 1, ["b"]),
    ].map((entry, i) => snapshotWriteOf(entry, i));
    expect(auditData([], writes).doubleSeated).toEqual([]);
    // Still open, it would count.
    const open = [lobbyEntry("ABC", 4, 1, ["b"]), lobbyEntry("XYZ", 5, 1, ["b"])].map((e, i) =>
      snapshotWriteOf(e, i),
    );
    expect(auditData([], open).doubleSeated).toEqual(["b is a member of both ABC and XYZ"]);
  });
});
