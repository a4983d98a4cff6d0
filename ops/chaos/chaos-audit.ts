import type { ChaosJournal, FinalView } from "./chaos-journal.ts";
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
  return {
    lostAcks: state.lostAcks,
    lostLobbies: state.lostLobbies,
    dualOwners: auditVoices(journal.heard, journal.writes),
    strandedClients: state.strandedClients,
    orderViolations: [...state.orderViolations, ...auditHeardOrder(journal.heard)],
    unheardChanges: hearing.unheardChanges,
    hearingChecked: hearing.checked,
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
      report.unheardChanges.length >
    0
  );
}
