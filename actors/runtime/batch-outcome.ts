import type { Envelope } from "./actor-cell.ts";
import type { SnapshotSpawn } from "./ports.ts";
import type { AskResult, Effect } from "./types.ts";

/** What handling one envelope of a batch produced. */
export interface Outcome {
  readonly envelope: Envelope;
  readonly effects: readonly Effect[];
  readonly cached?: AskResult;
  /** The change may run its effects before it is written (see Transition.volatile). */
  readonly volatile: boolean;
  /** The runtime's flush: write even though nothing changed in this batch. */
  readonly flush?: boolean;
}

/**
 * A written batch's outcomes as a node that may no longer speak for the key carries them out: the spawns
 * its snapshot records are left to whoever restores it (which makes sure they exist), so none is made
 * twice and no `spawnFailed` reaches the restored creator for a child that exists.
 */
export function silenced(
  stamped: readonly Outcome[],
  recorded: readonly SnapshotSpawn[],
): readonly Outcome[] {
  return recorded.length > 0 ? stamped.map(withoutSpawns) : stamped;
}

function withoutSpawns(outcome: Outcome): Outcome {
  return { ...outcome, effects: outcome.effects.filter((e) => e.type !== "spawn") };
}

/** The spawns among a batch's effects, as its snapshot records them. */
export function spawnsOf(effects: readonly Effect[]): SnapshotSpawn[] {
  return effects.flatMap((e) => (e.type === "spawn" ? [spawnOf(e)] : []));
}

/** A spawn effect as its snapshot records it (and as the runtime carries it out). */
export function spawnOf(effect: Extract<Effect, { type: "spawn" }>): SnapshotSpawn {
  return {
    key: effect.key,
    init: effect.init,
    ...(effect.node === undefined ? {} : { node: effect.node }),
    ...(effect.confirm === undefined ? {} : { confirm: effect.confirm }),
    ...(effect.reask === undefined ? {} : { reask: effect.reask }),
  };
}

/**
 * An outcome whose spawns were already carried out. One whose `quietIfFailed` spawn failed tells its
 * players nothing: its frames would describe a child that does not exist, and the creator's
 * `spawnFailed` (already in its mailbox) changes that state again and says so. Its asker is still
 * answered, and its frames' numbers are simply not heard (clients take the next higher one).
 */
export function afterSpawns(outcome: Outcome, failed: ReadonlySet<string>): Outcome {
  const spoiled = outcome.effects.some(
    (e) => e.type === "spawn" && e.quietIfFailed === true && failed.has(e.key),
  );
  const kept = outcome.effects.filter((e) => e.type !== "spawn" && !(spoiled && e.type === "push"));
  return { ...outcome, effects: kept };
}
