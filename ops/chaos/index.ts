/** ops/chaos/: `foyer chaos` — a local fleet broken on purpose under SDK bots, and the audit of what survived. */
export { runChaos, type ChaosOptions, type ChaosResult } from "./run-chaos.ts";
export { auditRun, auditFailed, type AuditReport } from "./chaos-audit.ts";
export {
  planFaults,
  describeSchedule,
  faultKinds,
  type FaultKind,
  type PlannedFault,
} from "./fault-schedule.ts";
export { summarize, summaryText, type ChaosSummary } from "./chaos-summary.ts";
export { emptyJournal } from "./chaos-journal.ts";
export type {
  AppliedFault,
  BotOpKind,
  ChaosJournal,
  ConnectionEvent,
  DataChange,
  FinalView,
  HeardFrame,
  LobbyFacts,
  OpRecord,
  SnapshotWrite,
  StoredLobbyData,
} from "./chaos-journal.ts";
export { auditData, finalLobbies, type DataFindings } from "./data-audit.ts";
export type { ProbeResult } from "./state-audit.ts";
