import { expectationOf } from "./ack-replay.ts";
import type { OpRecord, SnapshotWrite, StoredLobbyData } from "./chaos-journal.ts";
import { opsByBot } from "./state-audit.ts";
import { groupBy } from "./group-by.ts";

/** What the data audit found, as sentences, and how many acknowledged changes it held to the store. */
export interface DataFindings {
  /** Acked lobby data, member data, lock or ban changes the final stored lobby does not reflect. */
  readonly lostDataChanges: string[];
  /** A stored lobby listing a player it banned. */
  readonly bannedMembers: string[];
  /** A stored lobby holding more members than its `maxMembers`. */
  readonly overfilled: string[];
  /** A player listed by two final stored lobbies. */
  readonly doubleSeated: string[];
  /** The acked changes compared with a lobby's last stored state. */
  checked: number;
}

/**
 * Each lobby's last stored state (by code): `last` is the last write that held the lobby — for one that
 * closed (its last member left, the key deleted), its state before that — and `open` says whether the
 * key still holds it.
 */
export function finalLobbies(
  writes: readonly SnapshotWrite[],
): Map<string, { readonly last: StoredLobbyData; readonly open: boolean }> {
  const last = new Map<string, SnapshotWrite>();
  const live = new Map<string, StoredLobbyData>();
  for (const write of [...writes].sort((a, b) => a.revision - b.revision)) {
    if (!write.key.startsWith("lobby/")) continue;
    last.set(write.key, write);
    const stored = write.lobby?.stored;
    if (write.epoch !== null && stored) live.set(write.key, stored);
  }
  const final = new Map<string, { last: StoredLobbyData; open: boolean }>();
  for (const [key, stored] of live) {
    final.set(key.slice("lobby/".length), { last: stored, open: last.get(key)?.epoch !== null });
  }
  return final;
}

/**
 * "No acknowledged data change is lost": every acked `setLobbyData`, `setMemberData`, `lock` and
 * kick-with-ban must show in the lobby's last stored state (`finalLobbies`) unless a later acked change of the same key
 * superseded it (the answered `version` orders a lobby's changes), or an unanswered request of the same
 * key may have landed after it. An acked `ifVersion` update answers exactly `ifVersion + 1`, and no two
 * acked data changes of a lobby answer the same version (a change lost in a failover and its version
 * handed out again). In every stored write: no banned player is a member, and members ≤ `maxMembers`;
 * in the final store, no player is a member of two lobbies.
 */
export function auditData(ops: readonly OpRecord[], writes: readonly SnapshotWrite[]): DataFindings {
  const findings: DataFindings = {
    lostDataChanges: [],
    bannedMembers: [],
    overfilled: [],
    doubleSeated: [],
    checked: 0,
  };
  const final = finalLobbies(writes);
  auditWrites(writes, findings);
  auditVersions(ops, findings);
  const lobbyOps = groupBy(
    ops.filter((op) => op.code !== null && op.outcome !== "refused"),
    (op) => op.code ?? "",
  );
  for (const [code, about] of lobbyOps) {
    const lobby = final.get(code);
    if (!lobby) continue; // never written as a lobby of this shape
    auditLobbyData(code, about, lobby, findings);
    // A closed lobby's last write the watch saw may predate the ban (see auditLobbyData).
    if (lobby.open) auditBans(code, about, lobby.last, findings);
  }
  auditMemberData(ops, final, findings);
  const seats = new Map<string, string>();
  for (const [code, { last, open }] of final) {
    if (!open) continue;
    for (const player of Object.keys(last.memberData)) {
      const other = seats.get(player);
      if (other !== undefined)
        findings.doubleSeated.push(`${player} is a member of both ${other} and ${code}`);
      else seats.set(player, code);
    }
  }
  return findings;
}

/** The invariants every stored write holds: no banned member, no more members than seats. */
function auditWrites(writes: readonly SnapshotWrite[], findings: DataFindings): void {
  const seen = new Set<string>();
  const once = (list: string[], id: string, text: string): void => {
    if (seen.has(id)) return;
    seen.add(id);
    list.push(text);
  };
  for (const write of writes) {
    const lobby = write.lobby;
    const stored = lobby?.stored;
    if (!lobby || !stored) continue;
    const members = lobby.members.map((m) => m.player);
    const at = `${write.key} ${write.epoch ?? "-"}/${write.seq ?? "-"}`;
    if (members.length > stored.maxMembers) {
      once(
        findings.overfilled,
        `over ${write.key}`,
        `${at}: ${members.length} members, ${stored.maxMembers} seats`,
      );
    }
    for (const player of members.filter((p) => stored.banned.includes(p))) {
      once(findings.bannedMembers, `ban ${write.key} ${player}`, `${at}: banned ${player} is a member`);
    }
  }
}

/** Acked ifVersion updates answer ifVersion + 1; a lobby's acked data changes answer distinct versions. */
function auditVersions(ops: readonly OpRecord[], findings: DataFindings): void {
  const answered = new Map<string, OpRecord>();
  for (const op of ops) {
    if (op.outcome !== "acked" || typeof op.version !== "number" || op.data === undefined) continue;
    const ifVersion = op.data.ifVersion;
    if (ifVersion !== null && op.version !== ifVersion + 1) {
      findings.lostDataChanges.push(
        `${op.code ?? "?"}: #${op.id} ${op.kind} ifVersion ${ifVersion} acked at version ${op.version}`,
      );
    }
    const id = `${op.code ?? "?"} ${op.version}`;
    const other = answered.get(id);
    if (other) {
      findings.lostDataChanges.push(
        `${op.code ?? "?"}: #${other.id} ${other.kind} and #${op.id} ${op.kind} both acked at version ${op.version}`,
      );
    } else answered.set(id, op);
  }
}

/** Each lobby data key (and the lock) as the last acked change of it left it. */
function auditLobbyData(
  code: string,
  about: readonly OpRecord[],
  lobby: { readonly last: StoredLobbyData; readonly open: boolean },
  findings: DataFindings,
): void {
  const stored = lobby.last;
  const keyed = groupBy(
    about.filter((op) => op.kind === "setLobbyData" || op.kind === "lock"),
    (op) => (op.kind === "lock" ? "door.locked" : (op.data?.key ?? "")),
  );
  for (const [key, changes] of keyed) {
    const acked = changes.filter((op) => op.outcome === "acked" && typeof op.version === "number");
    const top = acked.reduce<OpRecord | null>(
      (a, b) => ((b.version ?? 0) > (a?.version ?? -1) ? b : a),
      null,
    );
    if (!top) continue;
    // The watch sees a key's latest value, not every write: writes overwritten while it was cut off
    // (a nats-server kill) are gone from the bucket's history. An open lobby's final value always comes;
    // a closed one's last write seen before its delete may be older than the change: not judged.
    if (!lobby.open && stored.version < (top.version ?? 0)) continue;
    findings.checked += acked.length;
    const valueOf = (op: OpRecord): unknown => (op.kind === "lock" ? op.arg : op.data?.value);
    const allowed = [top, ...changes.filter((op) => op.outcome === "unknown")].map(valueOf);
    const now = key === "door.locked" ? stored.locked : stored.data[key];
    if (!allowed.includes(now) || stored.version < (top.version ?? 0)) {
      findings.lostDataChanges.push(
        `${code} ${key}: ${String(valueOf(top))} acked at version ${top.version ?? "?"} (#${top.id}), ` +
          `stored ${String(now)} at version ${stored.version}`,
      );
    }
  }
}

/** Every acked ban is in the stored ban list, and the banned player is not a member. */
function auditBans(
  code: string,
  about: readonly OpRecord[],
  stored: StoredLobbyData,
  findings: DataFindings,
): void {
  for (const op of about) {
    if (op.kind !== "kick" || op.outcome !== "acked" || typeof op.arg !== "string") continue;
    findings.checked += 1;
    if (!stored.banned.includes(op.arg)) {
      findings.lostDataChanges.push(
        `${code}: ban of ${op.arg} acked (#${op.id}), not in the stored ban list`,
      );
    }
    if (op.arg in stored.memberData) {
      findings.bannedMembers.push(`${code}: ${op.arg} banned (#${op.id}) and still a member`);
    }
  }
}

/** Each member's own data as its last acked change since it joined left it. */
function auditMemberData(
  ops: readonly OpRecord[],
  final: ReadonlyMap<string, { readonly last: StoredLobbyData; readonly open: boolean }>,
  findings: DataFindings,
): void {
  for (const [bot, mine] of opsByBot(ops)) {
    const e = expectationOf(mine);
    if (e.kind !== "in") continue;
    const data = final.get(e.code)?.last.memberData[bot];
    if (data === undefined) continue; // not a member: the membership audits say why
    const since = mine.filter(
      (op) => op.bot === bot && op.kind === "setMemberData" && op.code === e.code && op.id > e.by.id,
    );
    for (const [key, changes] of groupBy(since, (op) => op.data?.key ?? "")) {
      const acked = changes.filter((op) => op.outcome === "acked");
      const top = acked.at(-1);
      if (!top) continue;
      findings.checked += acked.length;
      const allowed: unknown[] = [top, ...changes.filter((op) => op.outcome === "unknown")].map(
        (op) => op.data?.value,
      );
      if (!allowed.includes(data[key])) {
        findings.lostDataChanges.push(
          `${e.code} ${bot} member data ${key}: ${top.data?.value ?? "?"} acked (#${top.id}), stored ${String(data[key])}`,
        );
      }
    }
  }
}
