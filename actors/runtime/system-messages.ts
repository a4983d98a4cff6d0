import { z } from "zod";
import type { Restored, TimerFired } from "./types.ts";

/** The messages the runtime itself delivers to every kind; each kind's `parse` accepts them too. */

/** A timer armed by a `timer` effect has fired. */
export const timerFiredSchema = z.strictObject({
  type: z.literal("timer"),
  name: z.string().min(1).max(200),
});

/**
 * Player ids, 1–128 characters each. Checked in one plain loop: the list names every player connected to
 * the node, and a failover delivers it to each lobby it restores (z.array copies and checks element by
 * element, which made the check cost more than the restore).
 */
const playerList = z.custom<readonly string[]>(
  (value) =>
    Array.isArray(value) && value.every((p) => typeof p === "string" && p.length >= 1 && p.length <= 128),
  { message: "expected a list of player ids (1–128 characters each)" },
);

/** The actor was restored on a node that did not run it a moment ago (failover or migration). */
export const restoredSchema = z.strictObject({
  type: z.literal("restored"),
  reason: z.enum(["failover", "migration"]),
  /** Players whose sessions are on this node now. */
  connected: playerList,
});

const systemMessageSchema = z.discriminatedUnion("type", [timerFiredSchema, restoredSchema]);

/**
 * A kind's `parse`: its own messages (validated with `schema`) plus the runtime's timer and restored
 * messages; undefined for anything else.
 */
export function kindMessageParser<M>(
  schema: z.ZodType<M>,
): (message: unknown) => M | TimerFired | Restored | undefined {
  return (message) => {
    // The runtime's own messages are told apart by their type, without failing the kind's schema first.
    const type = (message as { type?: unknown } | null)?.type;
    if (type === "timer" || type === "restored") {
      const system = systemMessageSchema.safeParse(message);
      return system.success ? system.data : undefined;
    }
    const own = schema.safeParse(message);
    return own.success ? own.data : undefined;
  };
}
