import type { ActorCell, ArmedTimer } from "./actor-cell.ts";
import type { SnapshotTimer } from "./ports.ts";
import type { Effect } from "./types.ts";

/**
 * Timers of a live actor: what the snapshot says about them after a batch, and the changes to make once
 * that snapshot is written. Game timers are deadlines; grace timers are written as the time they have left.
 */

/** The timer table after `effects`, without the timers that fired in the batch (unless re-armed). */
export function planTimers(
  cell: ActorCell,
  effects: readonly Effect[],
  fired: ReadonlyMap<string, ArmedTimer>,
  now: number,
): { table: SnapshotTimer[]; changes: Effect[] } {
  const table = new Map<string, { kind: "game" | "grace"; at: number }>();
  for (const [name, timer] of cell.timers)
    if (!fired.has(name)) table.set(name, { kind: timer.kind, at: timer.at });
  const changes: Effect[] = [];
  for (const effect of effects) {
    if (effect.type === "timer") {
      table.set(effect.name, { kind: effect.kind, at: effect.at });
      changes.push(effect);
    } else if (effect.type === "cancelTimer" && table.delete(effect.name)) {
      changes.push(effect);
    }
  }
  const list: SnapshotTimer[] = [];
  for (const [name, timer] of table) {
    list.push(
      timer.kind === "game"
        ? { name, kind: "game", at: timer.at }
        : { name, kind: "grace", remainingMs: Math.max(0, timer.at - now) },
    );
  }
  return { table: list, changes };
}

/** The current timer table of a live actor, as a snapshot writes it. */
export function timerTable(cell: ActorCell, now: number): SnapshotTimer[] {
  return planTimers(cell, [], new Map(), now).table;
}

/** After a written batch: the timers that fired are gone (a re-armed one of the same name stays). */
export function forgetFired(cell: ActorCell, fired: ReadonlyMap<string, ArmedTimer>): void {
  for (const [name, timer] of fired) if (cell.timers.get(name) === timer) cell.deleteTimer(name);
}

/** The deadline at which a snapshot timer fires again after a restore. */
export function restoredDeadline(timer: SnapshotTimer, now: number): number {
  return timer.kind === "game" ? (timer.at ?? now) : now + (timer.remainingMs ?? 0);
}
