import { z } from "zod";
import type { Restored, TimerFired } from "../runtime/types.ts";
import { playerIdSchema, restoredSchema, timerFiredSchema } from "../lobby/index.ts";

/** What the minimal room accepts: its lobby's orders and its players' reports. */

/** Every message a room handles. */
export const roomMessageSchema = z.discriminatedUnion("type", [
  // From the lobby: the host returned or the lobby closed; the room ends at once.
  z.strictObject({ type: z.literal("end") }),
  // From the lobby: a guest stepped out; the room plays on.
  z.strictObject({ type: z.literal("leaveSeat"), player: playerIdSchema }),
  // From a seated player: the match is over.
  z.strictObject({ type: z.literal("finish"), player: playerIdSchema }),
]);

/** A room message. */
export type RoomMessage = z.output<typeof roomMessageSchema>;

const incomingSchema = z.discriminatedUnion("type", [
  ...roomMessageSchema.options,
  timerFiredSchema,
  restoredSchema,
]);

/** Validates a message for a room; undefined for anything else. */
export function parseRoomMessage(message: unknown): RoomMessage | TimerFired | Restored | undefined {
  const result = incomingSchema.safeParse(message);
  return result.success ? result.data : undefined;
}
