import type { AuditReport } from "./chaos-audit.ts";
import { botOpKinds, type ChaosJournal } from "./chaos-journal.ts";
import { percentile } from "./recovery.ts";

/** The figures of a run: the JSON line `foyer chaos --json` ends with. */
export interface ChaosSummary {
  readonly seed: number;
  readonly seconds: number;
  readonly kills: number;
  readonly stops: number;
  readonly natsKills: number;
  /** Drains the nodes carried out. */
  readonly drains: number;
  /** Drains asked for and not carried out (a node that cannot drain yet answers 501). */
  readonly drainsSkipped: number;
  readonly ops: number;
  readonly acked: number;
  /** Acknowledged requests of each kind (create, join, quickJoin, setLobbyData, joinActivity, findLobby…). */
  readonly ackedByKind: Readonly<Record<string, number>>;
  /** Requests refused with a final error (FULL, NOT_FOUND, NOT_HOST…): nothing changed. */
  readonly refused: number;
  /** Requests that ended without an answer (the deadline passed): left out of the ack replay. */
  readonly unknown: number;
  /** Frames about a key the bots' sockets received, and snapshot writes seen on `lobbies`: what "one voice" was checked on. */
  readonly framesHeard: number;
  readonly snapshotWrites: number;
  readonly lostAcks: number;
  readonly lostLobbies: number;
  readonly dualOwners: number;
  readonly strandedClients: number;
  readonly orderViolations: number;
  /** Lobby changes a connected member did not hear within 10 s, and the (change, member) pairs checked. */
  readonly unheardChanges: number;
  readonly hearingChecked: number;
  /** Acked data changes (lobby data, member data, lock, ban) lost from the final stored lobby, and how many were checked. */
  readonly lostDataChanges: number;
  readonly dataChecked: number;
  /** Stored lobbies listing a player they banned; with more members than seats; players in two final lobbies. */
  readonly bannedMembers: number;
  readonly overfilled: number;
  readonly doubleSeated: number;
  /** Node faults after which some affected bot was never served again (no recovery time counted). */
  readonly unrecovered: number;
  readonly recoveryMsP50: number;
  readonly recoveryMsP99: number;
}

/** Counts what a run did and found. */
export function summarize(
  seed: number,
  seconds: number,
  journal: ChaosJournal,
  report: AuditReport,
): ChaosSummary {
  const applied = (kind: string): number => journal.faults.filter((f) => f.kind === kind && f.applied).length;
  return {
    seed,
    seconds,
    kills: applied("kill"),
    stops: applied("stop"),
    natsKills: applied("natsKill"),
    drains: applied("drain"),
    drainsSkipped: journal.faults.filter((f) => f.kind === "drain" && !f.applied).length,
    ops: journal.ops.length,
    acked: journal.ops.filter((op) => op.outcome === "acked").length,
    ackedByKind: ackedByKind(journal),
    refused: journal.ops.filter((op) => op.outcome === "refused").length,
    unknown: journal.ops.filter((op) => op.outcome === "unknown").length,
    framesHeard: journal.heard.length,
    snapshotWrites: journal.writes.length,
    lostAcks: report.lostAcks.length,
    lostLobbies: report.lostLobbies.length,
    dualOwners: report.dualOwners.length,
    strandedClients: report.strandedClients.length,
    orderViolations: report.orderViolations.length,
    unheardChanges: report.unheardChanges.length,
    hearingChecked: report.hearingChecked,
    lostDataChanges: report.lostDataChanges.length,
    dataChecked: report.dataChecked,
    bannedMembers: report.bannedMembers.length,
    overfilled: report.overfilled.length,
    doubleSeated: report.doubleSeated.length,
    unrecovered: report.unrecovered.length,
    recoveryMsP50: percentile(report.recoveryMs, 50),
    recoveryMsP99: percentile(report.recoveryMs, 99),
  };
}

/** The acked requests of each kind, in the journal's kind order. */
function ackedByKind(journal: ChaosJournal): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const op of journal.ops) if (op.outcome === "acked") counts[op.kind] = (counts[op.kind] ?? 0) + 1;
  return Object.fromEntries(botOpKinds.filter((k) => k in counts).map((k) => [k, counts[k] ?? 0]));
}

const shown = 20;

/** The human summary: figures, then each finding (the first 20 of a kind), then the faults as applied. */
export function summaryText(summary: ChaosSummary, report: AuditReport, journal: ChaosJournal): string {
  const lines = [
    `chaos seed ${summary.seed}: ${summary.seconds} s, ${summary.ops} ops (${summary.acked} acked, ${summary.refused} refused, ${summary.unknown} unanswered)`,
    `acked by kind: ${Object.entries(summary.ackedByKind)
      .map(([kind, n]) => `${kind} ${n}`)
      .join(", ")}`,
    `faults: ${summary.kills} kill -9, ${summary.stops} SIGSTOP, ${summary.natsKills} nats-server kill -9, ` +
      `${summary.drains} drains` +
      (summary.drainsSkipped > 0 ? ` (${summary.drainsSkipped} skipped: the node cannot drain yet)` : ""),
    `recovery: p50 ${summary.recoveryMsP50} ms, p99 ${summary.recoveryMsP99} ms` +
      (summary.unrecovered > 0 ? `, ${summary.unrecovered} faults not recovered` : ""),
    `one voice checked on ${summary.framesHeard} frames heard and ${summary.snapshotWrites} snapshot writes`,
    `lostAcks ${summary.lostAcks}, lostLobbies ${summary.lostLobbies}, dualOwners ${summary.dualOwners}, ` +
      `strandedClients ${summary.strandedClients}, orderViolations ${summary.orderViolations}, ` +
      `unheardChanges ${summary.unheardChanges} (of ${summary.hearingChecked} member-changes checked)`,
    `lostDataChanges ${summary.lostDataChanges} (of ${summary.dataChecked} acked data changes checked), ` +
      `bannedMembers ${summary.bannedMembers}, overfilled ${summary.overfilled}, doubleSeated ${summary.doubleSeated}`,
  ];
  const kinds: [string, readonly string[]][] = [
    ["lost acks", report.lostAcks],
    ["lost lobbies", report.lostLobbies],
    ["dual owners", report.dualOwners],
    ["stranded clients", report.strandedClients],
    ["member and host order", report.orderViolations],
    ["changes a member did not hear", report.unheardChanges],
    ["lost data changes", report.lostDataChanges],
    ["banned members", report.bannedMembers],
    ["overfilled lobbies", report.overfilled],
    ["players in two lobbies", report.doubleSeated],
    ["not recovered", report.unrecovered],
  ];
  for (const [name, findings] of kinds) {
    if (findings.length === 0) continue;
    lines.push(`${name}:`, ...findings.slice(0, shown).map((f) => `  ${f}`));
    if (findings.length > shown) lines.push(`  … and ${findings.length - shown} more`);
  }
  lines.push("faults applied:");
  for (const f of journal.faults) {
    lines.push(
      `  ${new Date(f.at).toISOString().slice(11, 23)} ${f.kind} ${f.target}${f.applied ? "" : " (not applied)"}: ${f.note}`,
    );
  }
  return lines.join("\n");
}
