import { PersistError, type Snapshot } from "../../actors/runtime/index.ts";
import { isKvError } from "../kv-error.ts";

/**
 * The simulation's actor: a counter per key whose state is the list of op ids it applied, and the ops a
 * lobby and a player registry key hold (a member joining and leaving, a move intent and its confirmation).
 */

/** The snapshot kind of the simulation's actor: its state is the list of applied op ids. */
export const counterKind = "sim-counter";

/** How an op sent to a node ended, as the client hears it. */
export type OpAnswer = "acked" | "refused";

/** An op on its way to its key's actor, with where its answer goes. */
export interface QueuedOp {
  readonly op: string;
  readonly answer: (answer: OpAnswer) => void;
}

/** The tiny actor of a key: the op ids it applied, and where its chain stands. */
export interface CounterActor {
  readonly key: string;
  readonly epoch: number;
  revision: number;
  ops: readonly string[];
  readonly queue: QueuedOp[];
  busy: boolean;
  dropped: boolean;
  /** Frozen for a migration: ops wait in `queue` until the hand-over sends them on. */
  frozen: boolean;
  /** Waiting for the op in flight to finish (a freeze). */
  readonly idle: (() => void)[];
  /** A registry key's intent driver is armed. */
  driving: boolean;
}

/** The op a registry key's state holds while its player moves away from `lobby` (the intent). */
export function moveOp(lobby: string): string {
  return `move:${lobby}`;
}

/** The op a registry key's state holds once `lobby` confirmed the player left. */
export function leftOp(lobby: string): string {
  return `left:${lobby}`;
}

/** The ops a lobby's state holds for a member joining and leaving. */
export function joinOp(player: string): string {
  return `join:${player}`;
}
export function leaveOp(player: string): string {
  return `leave:${player}`;
}

/** The lobbies a registry's ops still have to leave: moves not confirmed `left`. */
export function pendingLeaves(ops: readonly string[]): string[] {
  return ops
    .filter((op) => op.startsWith("move:"))
    .map((op) => op.slice("move:".length))
    .filter((lobby) => !ops.includes(leftOp(lobby)));
}

/** A counter actor of `key` at `epoch` and `revision`, holding `ops`. */
export function newActor(key: string, epoch: number, revision: number, ops: readonly string[]): CounterActor {
  return {
    key,
    epoch,
    revision,
    ops,
    queue: [],
    busy: false,
    dropped: false,
    frozen: false,
    idle: [],
    driving: false,
  };
}

/** Marks `actor` dropped: the ops waiting for it are refused and a freeze waiting on it goes on. */
export function abandon(actor: CounterActor): void {
  actor.dropped = true;
  for (const queued of actor.queue.splice(0)) queued.answer("refused");
  for (const resolve of actor.idle.splice(0)) resolve();
}

/** The snapshot of a counter actor of `key` at `epoch` holding `ops`, under a fresh write id. */
export function counterSnapshot(
  newWriteId: () => string,
  key: string,
  epoch: number,
  ops: readonly string[],
): Snapshot {
  return {
    format: 1,
    kind: counterKind,
    schemaVersion: 1,
    key,
    epoch,
    seq: ops.length,
    writeId: newWriteId(),
    state: ops,
    timers: [],
    results: [],
  };
}

/** A failure as the trace names it. */
export function describe(error: unknown): string {
  if (error instanceof PersistError) return error.failure;
  if (isKvError(error)) return error.code;
  return error instanceof Error ? error.name : String(error);
}
