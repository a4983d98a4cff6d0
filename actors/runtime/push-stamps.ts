import type { ActorCell } from "./actor-cell.ts";
import type { Scheduler } from "./ports.ts";
import type { Effect } from "./types.ts";

/**
 * Gives every push the key, epoch and next sequence number; the snapshot then carries the last seq.
 * Events (docs/server-api.md) take no number of their own, so the frames of consecutive changes keep
 * consecutive numbers: they are stamped with the seq of the last frame of their change and their index
 * in it, and only a change whose events no frame separates from earlier events takes a fresh number.
 */
export function stampPushes(cell: ActorCell, effects: readonly Effect[], scheduler: Scheduler): Effect[] {
  const pushed = effects.map((effect) => {
    if (effect.type !== "push") return effect;
    cell.seq++;
    return { ...effect, frame: { ...effect.frame, key: cell.key, epoch: cell.epoch, seq: cell.seq } };
  });
  if (!pushed.some((e) => e.type === "event")) return pushed;
  if (cell.seq === cell.eventSeq) cell.seq++;
  cell.eventSeq = cell.seq;
  const at = scheduler.now();
  let index = 0;
  return pushed.map((effect) => {
    if (effect.type !== "event") return effect;
    return { ...effect, stamp: { key: cell.key, epoch: cell.epoch, seq: cell.seq, index: index++, at } };
  });
}
