import type { Scheduler } from "../../actors/runtime/index.ts";
import { type CounterActor, type QueuedOp, leaveOp, leftOp, pendingLeaves } from "./sim-counter.ts";

/** How often a registry drives an unconfirmed leave. */
const leaveRetryMs = 400;

/** What a registry's drive needs from the process that runs its actor. */
export interface RegistryDriveHost {
  /** True while `actor` is the live actor of its key here and the process runs. */
  readonly live: (actor: CounterActor) => boolean;
  readonly mayAct: () => boolean;
  readonly stopped: () => boolean;
  readonly forward: (key: string, ops: readonly QueuedOp[]) => void;
  readonly receive: (key: string, op: string, answer: QueuedOp["answer"]) => void;
  readonly scheduler: Scheduler;
}

/**
 * The player registry's move intent (actors/player/player-machine.ts): while a registry key's state
 * holds a move not confirmed `left`, its live owner tells the old lobby `leave` on a timer until the
 * lobby acknowledges, then records `left`. Driven again by whoever restores the key.
 */
export function driveLeaves(actor: CounterActor, host: RegistryDriveHost): void {
  if (!actor.key.startsWith("player/") || actor.driving) return;
  if (pendingLeaves(actor.ops).length === 0) return;
  actor.driving = true;
  const player = actor.key.slice("player/".length);
  const tick = (): void => {
    if (!host.live(actor)) return;
    const pending = pendingLeaves(actor.ops);
    if (pending.length === 0) {
      actor.driving = false;
      return;
    }
    if (host.mayAct() && !actor.frozen) {
      for (const lobby of pending) {
        host.forward(lobby, [
          {
            op: leaveOp(player),
            answer: (answer) => {
              if (answer !== "acked" || host.stopped()) return;
              host.receive(actor.key, leftOp(lobby), () => undefined);
            },
          },
        ]);
      }
    }
    host.scheduler.at(host.scheduler.now() + leaveRetryMs, tick);
  };
  tick();
}
