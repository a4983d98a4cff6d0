import { describe, expect, it } from "vitest";
import { auditData } from "../../ops/chaos/data-audit.ts";
import { expectationOf } from "../../ops/chaos/ack-replay.ts";
import { opsByBot } from "../../ops/chaos/state-audit.ts";
import { writtenLobby } from "../../ops/chaos/snapshot-history.ts";
import type { DataChange, OpRecord, SnapshotWrite } from "../../ops/chaos/index.ts";

/** Hand-made histories for the data audit: requests as bots journal them, and the lobby's stored writes. */
function history() {
  const ops: OpRecord[] = [];
  const writes: SnapshotWrite[] = [];
  let id = 0;
  const op = (
    bot: string,
    kind: OpRecord["kind"],
    fields: {
      code?: string;
      arg?: OpRecord["arg"];
      data?: DataChange;
      version?: number;
      outcome?: OpRecord["outcome"];
    } = {},
  ): OpRecord => {
    id += 1;
    const record: OpRecord = {
      id,
      bot,
      kind,
      code: fields.code ?? "ABC",
      arg: fields.arg ?? null,
      sentAt: id * 10,
      endedAt: id * 10 + 5,
      outcome: fields.outcome ?? "acked",
      error: null,
      ...(fields.data === undefined ? {} : { data: fields.data }),
      version: fields.version ?? null,
    };
    ops.push(record);
    return record;
  };
  const set = (bot: string, key: string, value: string, version: number, more: Partial<DataChange> = {}) =>
    op(bot, "setLobbyData", { data: { key, value, ifVersion: null, ...more }, version });
  const mine = (
    bot: string,
    key: string,
    value: string,
    version: number,
    outcome: OpRecord["outcome"] = "acked",
  ) => op(bot, "setMemberData", { data: { key, value, ifVersion: null }, version, outcome });
  /** A stored state of the lobby, as the nodes write it (read through the same parser as a run's watch). */
  const store = (state: {
    code?: string;
    members: string[];
    version: number;
    data?: Record<string, string>;
    memberData?: Record<string, Record<string, string>>;
    maxMembers?: number;
    banned?: string[];
    locked?: boolean;
  }): void => {
    const code = state.code ?? "ABC";
    const lobby = writtenLobby({
      code,
      version: state.version,
      data: Object.fromEntries(
        Object.entries(state.data ?? {}).map(([k, value]) => [k, { value, visibility: "public" }]),
      ),
      door: { maxMembers: state.maxMembers ?? 8, locked: state.locked ?? false, passwordHash: null },
      banned: state.banned ?? [],
      host: state.members[0] ?? null,
      room: null,
      members: state.members.map((player) => ({
        player,
        ready: false,
        connected: true,
        inRoom: false,
        data: state.memberData?.[player] ?? {},
      })),
    });
    writes.push({
      key: `lobby/${code}`,
      revision: writes.length + 1,
      epoch: 1,
      seq: writes.length + 1,
      lobby,
    });
  };
  return { ops, writes, op, set, mine, store };
}

const clean = { lostDataChanges: [], bannedMembers: [], overfilled: [], doubleSeated: [] };

describe("the chaos data audit", () => {
  it("finds nothing when the final stored lobby holds every acked change, and counts what it checked", () => {
    const h = history();
    h.op("a", "create");
    h.op("b", "join");
    h.set("a", "k0", "a.1", 3);
    h.set("a", "k0", "a.2", 4, { ifVersion: 3 });
    h.mine("b", "m0", "b.1", 5);
    h.op("a", "lock", { arg: true, version: 6 });
    h.store({
      members: ["a", "b"],
      version: 6,
      data: { k0: "a.2" },
      memberData: { b: { m0: "b.1" } },
      locked: true,
    });
    const found = auditData(h.ops, h.writes);
    expect({ ...found, checked: undefined }).toEqual({ ...clean, checked: undefined });
    expect(found.checked).toBe(4);
  });

  it("counts an acked lobby data change the store lost, and not one a later acked change superseded", () => {
    const h = history();
    h.op("a", "create");
    h.set("a", "k0", "a.1", 3);
    h.set("a", "k0", "a.2", 4);
    h.store({ members: ["a"], version: 4, data: { k0: "a.1" } });
    expect(auditData(h.ops, h.writes).lostDataChanges).toEqual([
      "ABC k0: a.2 acked at version 4 (#3), stored a.1 at version 4",
    ]);
    h.store({ members: ["a"], version: 5, data: { k0: "a.2" } });
    expect(auditData(h.ops, h.writes).lostDataChanges).toEqual([]);
  });

  it("holds a lobby that closed to its state before its last member left", () => {
    const h = history();
    h.op("a", "create");
    h.set("a", "k0", "a.1", 3);
    h.op("a", "leave");
    h.store({ members: ["a"], version: 3, data: {} });
    h.writes.push({ key: "lobby/ABC", revision: h.writes.length + 1, epoch: null, seq: null, lobby: null });
    const found = auditData(h.ops, h.writes);
    expect(found.lostDataChanges).toEqual([
      "ABC k0: a.1 acked at version 3 (#2), stored undefined at version 3",
    ]);
    expect(found.checked).toBe(1);
  });

  it("does not judge a closed lobby by a last write the watch saw before the change (it missed the later ones)", () => {
    const h = history();
    h.op("a", "create");
    h.op("b", "join");
    h.set("a", "k0", "a.1", 3);
    h.op("a", "kick", { arg: "b" });
    h.store({ members: ["a", "b"], version: 2, data: {} });
    h.writes.push({ key: "lobby/ABC", revision: h.writes.length + 1, epoch: null, seq: null, lobby: null });
    expect(auditData(h.ops, h.writes)).toEqual({ ...clean, checked: 0 });
  });

  it("allows what an unanswered change of the key may have set, and counts a version gone back", () => {
    const h = history();
    h.op("a", "create");
    h.set("a", "k1", "a.1", 7);
    h.op("a", "setLobbyData", { data: { key: "k1", value: "a.2", ifVersion: null }, outcome: "unknown" });
    h.store({ members: ["a"], version: 8, data: { k1: "a.2" } });
    expect(auditData(h.ops, h.writes).lostDataChanges).toEqual([]);
    h.store({ members: ["a"], version: 6, data: { k1: "a.1" } });
    expect(auditData(h.ops, h.writes).lostDataChanges).toHaveLength(1);
  });

  it("counts an ifVersion update acked past a change, and two acked changes answering one version", () => {
    const h = history();
    h.op("a", "create");
    h.set("a", "k0", "a.1", 9, { ifVersion: 5 });
    h.set("a", "k2", "a.2", 9);
    h.store({ members: ["a"], version: 9, data: { k0: "a.1", k2: "a.2" } });
    expect(auditData(h.ops, h.writes).lostDataChanges).toEqual([
      "ABC: #2 setLobbyData ifVersion 5 acked at version 9",
      "ABC: #2 setLobbyData and #3 setLobbyData both acked at version 9",
    ]);
  });

  it("counts a member's acked data the store lost, its lock lost, and looks at data since its join only", () => {
    const h = history();
    h.op("a", "create");
    h.op("b", "join");
    h.mine("b", "m1", "b.1", 3);
    h.op("b", "leave");
    h.op("b", "join");
    h.mine("b", "m0", "b.2", 6);
    h.op("a", "lock", { arg: true, version: 7 });
    h.store({ members: ["a", "b"], version: 7, memberData: { b: {} }, locked: false });
    expect(auditData(h.ops, h.writes).lostDataChanges).toEqual([
      "ABC door.locked: true acked at version 7 (#7), stored false at version 7",
      "ABC b member data m0: b.2 acked (#6), stored undefined",
    ]);
  });

  it("counts a ban the store lost and a banned player still a member, in any write", () => {
    const h = history();
    h.op("a", "create");
    h.op("b", "join");
    h.op("a", "kick", { arg: "b" });
    h.store({ members: ["a", "b"], version: 3, banned: ["b"] });
    h.store({ members: ["a"], version: 4, banned: [] });
    const found = auditData(h.ops, h.writes);
    expect(found.lostDataChanges).toEqual(["ABC: ban of b acked (#3), not in the stored ban list"]);
    expect(found.bannedMembers).toEqual(["lobby/ABC 1/1: banned b is a member"]);
  });

  it("counts a lobby stored with more members than seats, and a player in two final lobbies", () => {
    const h = history();
    h.store({ members: ["a", "b", "c"], version: 3, maxMembers: 2 });
    h.store({ members: ["a", "b"], version: 4, maxMembers: 2 });
    h.store({ code: "XYZ", members: ["c", "b"], version: 2 });
    const found = auditData(h.ops, h.writes);
    expect(found.overfilled).toEqual(["lobby/ABC 1/1: 3 members, 2 seats"]);
    expect(found.doubleSeated).toEqual(["b is a member of both ABC and XYZ"]);
  });

  it("replays an acked ban as the banned bot's leave, whatever the order of its own requests", () => {
    const h = history();
    h.op("a", "create");
    h.op("b", "join");
    h.op("a", "kick", { arg: "b" });
    h.op("b", "join"); // sent after the kick, acked: it overlapped it, or a banned player got in
    expect(expectationOf(opsByBot(h.ops).get("b") ?? []).kind).toBe("out");
    h.op("c", "join");
    h.op("a", "kick", { arg: "c", outcome: "unknown" });
    expect(expectationOf(opsByBot(h.ops).get("c") ?? []).kind).toBe("unknown");
  });
});
