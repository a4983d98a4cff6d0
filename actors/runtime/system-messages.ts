import { z } from "zod";
import type { Restored, TimerFired } from "./types.ts";

/** The messages the runtime itself delivers to every kind; each kind's `parse` accepts them too. */

/** A timer armed by a `timer` effect has fired. */
export const timerFiredSchema = z.strictObject({
  type: z.literal("timer"),
  name: z.string().min(1).max(200),
});

/** The actor was restored on a node that did not run it a moment ago (failover or migration). */
export const restoredSchema = z.strictObject({
  type: z.literal("restored"),
  reason: z.enum(["failover", "migration"]),
  /** Players whose sessions are on this node now (player ids, 1–128 characters). */
  connected: z.array(z.string().min(1).max(128)),
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
    const own = schema.safeParse(message);
    if (own.success) return own.data;
    const system = systemMessageSchema.safeParse(message);
    return system.success ? system.data : undefined;
  };
}
