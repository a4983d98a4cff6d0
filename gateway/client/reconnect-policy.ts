import { CloseCodes } from "../protocol/close-codes.ts";

/** Close codes after which reconnecting is pointless: a bad token, a newer login, an unspoken protocol. */
export const finalCloses: ReadonlySet<number> = new Set<number>([
  CloseCodes.UNAUTHORIZED.code,
  CloseCodes.REPLACED.code,
  CloseCodes.PROTOCOL.code,
]);

/** Closes an attempt that got no welcome in time; not a code a node sends, and not final. */
export const noWelcomeCode = 4996;

/**
 * The wait before reconnect attempt `attempt` (0-based): doubling from `min` up to `max`, with jitter so
 * the clients of a node that went down do not all come back in the same millisecond.
 */
export function backoffMs(attempt: number, min: number, max: number): number {
  return Math.min(max, min * 2 ** Math.min(attempt, 10)) * (0.5 + Math.random() / 2);
}
