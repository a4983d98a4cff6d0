import { PersistError } from "../../actors/runtime/index.ts";
import { isKvError } from "../kv-error.ts";

/**
 * The simulation's ops: the ids a key's actor applies (sim-counter-kind.ts), among them those a lobby and a
 * player registry hold (a member joining and leaving, a move intent and its confirmation).
 */

/** How an op sent to a node ended, as the client hears it. */
export type OpAnswer = "acked" | "refused";

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

/** A failure as the trace names it. */
export function describe(error: unknown): string {
  if (error instanceof PersistError) return error.failure;
  if (isKvError(error)) return error.code;
  return error instanceof Error ? error.name : String(error);
}
