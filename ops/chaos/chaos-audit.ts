import type { ChaosJournal, FinalView } from "./chaos-journal.ts";
import { auditData } from "./data-audit.ts";
import { auditHearing } from "./hearing-audit.ts";
import { measureRecovery } from "./recovery.ts";
import { auditFinalState, type ProbeResult } from "./state-audit.ts";
import { auditHeardOrder, auditVoices } from "./voice-audit.ts";

/** Every finding of a run's audit, as sentences; the counts are their lengths. */
export interface AuditReport {
  readonly lostAcks: readonly string[];
  readonly lostLobbies: readonly string[];
  readonly dualOwners: readonly string[];
  readonly strandedClients: readonly string[];
  /** SPEC §1 host and member order, in the final state and in every change a member heard. */
  readonly orderViolations: readonly string[];
  /** Lobby changes a member connected throughout did not hear from the lobby's owner within 10 s. */
  readonly unheardChanges: readonly string[];
  /** The (change, member) pairs the hearing audit looked at. */
  readonly hearingChecked: number;
  /** Acked lobby data, member data, lock and ban changes the final stored lobby does not reflect. */
  readonly lostDataChanges: readonly string[];
  /** Stored lobbies listing a player they banned. */
  readonly bannedMembers: readonly string[];
  /** Stored lobbies with more members than seats. */
  readonly overfilled: readonly string[];
  /** Players listed by two final stored lobbies. */
  readonly doubleSeated: readonly string[];
  /** The acked data changes compared with a final stored lobby. */
  readonly dataChecked: number;
  readonly recoveryMs: readonly number[];
  readonly unrecovered: readonly string[];
}

/** Audits a run: what was acknowledged against what is served, who was heard, and how fast bots came back. */
export function auditRun(
  journal: ChaosJournal,
  views: readonly FinalView[],
  probes: ReadonlyMap<string, ProbeResult>,
  endAt: number,
): AuditReport {
  const state = auditFinalState(journal.ops, views, probes);
  const recovery = measureRecovery(journal, endAt);
  const hearing = auditHearing(journal.writes, journal.heard, journal.connections, journal.ops);
  const data = auditData(journal.ops, journal.writes);
  return {
    lostAcks: state.lostAcks,
    lostLobbies: state.lostLobbies,
    dualOwners: auditVoices(journal.heard, journal.writes),
    strandedClients: state.strandedClients,
    orderViolations: [...state.orderViolations, ...auditHeardOrder(journal.heard)],
    unheardChanges: hearing.unheardChanges,
    hearingChecked: hearing.checked,
    lostDataChanges: data.lostDataChanges,
    bannedMembers: data.bannedMembers,
    overfilled: data.overfilled,
    doubleSeated: data.doubleSeated,
    dataChecked: data.checked,
    recoveryMs: recovery.recoveryMs,
    unrecovered: recovery.unrecovered,
  };
}

/** True when the run broke one of the invariants it exists to check. */
export function auditFailed(report: AuditReport): boolean {
  return (
    report.lostAcks.length +
      report.lostLobbies.length +
      report.dualOwners.length +
      report.strandedClients.length +
      report.orderViolations.length +
      report.unheardChanges.length +
      report.lostDataChanges.length +
      report.bannedMembers.length +
      report.overfilled.length +
      report.doubleSeated.length >
    0
  );
}
