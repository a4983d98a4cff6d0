import type { ChaosFleet } from "./chaos-fleet.ts";
import type { AppliedFault } from "./chaos-journal.ts";
import type { PlannedFault } from "./fault-schedule.ts";

/** What the fault runner needs: the fleet, the run's start and end, where applied faults go. */
export interface FaultRunnerDeps {
  readonly fleet: ChaosFleet;
  readonly startedAt: number;
  readonly endsAt: number;
  readonly record: (fault: AppliedFault) => void;
  /** A heal or restart that failed: the run goes on, the summary says so. */
  readonly onError: (what: string, error: unknown) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
/** At least this many Foyer nodes and nats-servers stay up at every moment. */
const keepUp = 2;

/**
 * Applies a schedule in order, each fault no earlier than planned: a fault waits while it would leave fewer
 * than two nodes (or nats-servers) up, or while its target is still down from an earlier fault; one that
 * cannot run before the load ends is skipped. Heals run on their own timers; the returned promise ends
 * when every fault and heal is done.
 */
export async function runFaults(plan: readonly PlannedFault[], deps: FaultRunnerDeps): Promise<void> {
  const heals: Promise<void>[] = [];
  for (const fault of plan) {
    const ready = await waitUntilAllowed(fault, deps);
    if (!ready) {
      deps.record({
        kind: fault.kind,
        target: targetName(fault, deps),
        at: Date.now(),
        applied: false,
        note: "skipped: the run ended first",
      });
      continue;
    }
    heals.push(apply(fault, deps));
  }
  await Promise.all(heals);
}

async function waitUntilAllowed(fault: PlannedFault, deps: FaultRunnerDeps): Promise<boolean> {
  await sleep(deps.startedAt + fault.atMs - Date.now());
  const { fleet } = deps;
  const allowed = (): boolean =>
    fault.kind === "natsKill"
      ? fleet.natsUp > keepUp && fleet.nats.isRunning(fault.target)
      : fleet.nodesUp > keepUp && fleet.isNodeUp(fault.target);
  while (!allowed()) {
    if (Date.now() >= deps.endsAt) return false;
    await sleep(100);
  }
  return Date.now() < deps.endsAt;
}

/** Applies one fault and, after its planned duration, heals it. */
async function apply(fault: PlannedFault, deps: FaultRunnerDeps): Promise<void> {
  const { fleet } = deps;
  const target = targetName(fault, deps);
  const at = Date.now();
  const healIn = fault.healAtMs - fault.atMs;
  try {
    switch (fault.kind) {
      case "kill":
        await fleet.kill(fault.target);
        deps.record({ kind: "kill", target, at, applied: true, note: `restart in ${healIn} ms` });
        await sleep(at + healIn - Date.now());
        await fleet.restart(fault.target);
        return;
      case "stop":
        fleet.freeze(fault.target);
        deps.record({ kind: "stop", target, at, applied: true, note: `SIGCONT in ${healIn} ms` });
        await sleep(at + healIn - Date.now());
        fleet.thaw(fault.target);
        return;
      case "natsKill":
        await fleet.killNats(fault.target);
        deps.record({ kind: "natsKill", target, at, applied: true, note: `restart in ${healIn} ms` });
        await sleep(at + healIn - Date.now());
        await fleet.restartNats(fault.target);
        return;
      case "drain": {
        const outcome = await fleet.drain(fault.target);
        deps.record({ kind: "drain", target, at, applied: outcome.applied, note: outcome.note });
        return;
      }
    }
  } catch (error) {
    deps.onError(`${fault.kind} ${target}`, error);
  }
}

function targetName(fault: PlannedFault, deps: FaultRunnerDeps): string {
  return fault.kind === "natsKill" ? `nats-${fault.target + 1}` : deps.fleet.nodeId(fault.target);
}
