import { z } from "zod";
import { playerIdSchema } from "./fields.ts";

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
  /** Players whose sessions are on this node now. */
  connected: z.array(playerIdSchema),
});
