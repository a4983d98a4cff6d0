/** fleet/sim/: a deterministic simulation of the fleet — the real FleetNode of each node, under faults. */

export { runSimulation } from "./run-simulation.ts";
export type { SimulationOptions, SimulationResult } from "./run-simulation.ts";
export { checkInvariants } from "./sim-checks.ts";
export type {
  AckRecord,
  CheckInput,
  FinalKey,
  Invariant,
  MoveRecord,
  Violation,
  WriteRecord,
} from "./sim-checks.ts";
export { membersAfter, partiesKept, partyPlan } from "./sim-party.ts";
export type { FinalParty, PartyMember, PartyPlan, PartyRecord } from "./sim-party.ts";
export { SimNet } from "./sim-bus.ts";
export type { BusFaultRates } from "./sim-bus.ts";
export { faultKinds, planFaults } from "./sim-faults.ts";
export type { Fault, FaultKind, FaultPlanOptions } from "./sim-faults.ts";
export { SimKv, kvTimeoutMs } from "./sim-kv.ts";
export type { KvFaultRates, KvReachability, LandedWrite } from "./sim-kv.ts";
export type { SimVariant } from "./sim-process.ts";
export { NodeClock, VirtualLoop } from "./virtual-loop.ts";
export type { SimHost } from "./virtual-loop.ts";
export { SimCounters, countedSubject } from "./sim-counters.ts";
export { runScaleSimulation } from "./sim-scale.ts";
export type { ScaleSimulationOptions, ScaleSimulationResult } from "./sim-scale.ts";
export { perNodeSecondRows, perOpRows, scaleFigures } from "./sim-scale-figures.ts";
export type { ScaleFigures, ScaleRow } from "./sim-scale-figures.ts";
export { scaleKindName, scalePlayersOf, simScaleKind } from "./sim-scale-kind.ts";
