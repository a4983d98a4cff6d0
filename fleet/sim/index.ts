/** fleet/sim/: a deterministic simulation of the fleet logic (Membership, KvActorStore, Failover) under faults. */

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
export { SimNet } from "./sim-bus.ts";
export type { BusFaultRates } from "./sim-bus.ts";
export { faultKinds, planFaults } from "./sim-faults.ts";
export type { Fault, FaultKind, FaultPlanOptions } from "./sim-faults.ts";
export { SimKv, kvTimeoutMs } from "./sim-kv.ts";
export type { KvFaultRates, KvReachability, LandedWrite } from "./sim-kv.ts";
export type { NodeVariant } from "./sim-node-ports.ts";
export { NodeClock, VirtualLoop } from "./virtual-loop.ts";
export type { SimHost } from "./virtual-loop.ts";
