import { z } from "zod";
import type { Restored, TimerFired } from "../runtime/index.ts";
import {
  lobbyListingSchema,
  lobbyUnlistSchema,
  modeSchema,
  restoredSchema,
  timerFiredSchema,
} from "../lobby/index.ts";

/** What the directory accepts: public lobbies' listings, and browse requests from gateways. */

/** Every message the directory handles. */
export const directoryMessageSchema = z.discriminatedUnion("type", [
  lobbyListingSchema,
  lobbyUnlistSchema,
  z.strictObject({
    type: z.literal("browse"),
    mode: modeSchema.optional(),
    freeOnly: z.boolean().optional(),
  }),
]);

/** A directory message. */
export type DirectoryMessage = z.output<typeof directoryMessageSchema>;

const incomingSchema = z.discriminatedUnion("type", [
  ...directoryMessageSchema.options,
  timerFiredSchema,
  restoredSchema,
]);

/** Validates a message for the directory; undefined for anything else. */
export function parseDirectoryMessage(
  message: unknown,
): DirectoryMessage | TimerFired | Restored | undefined {
  const result = incomingSchema.safeParse(message);
  return result.success ? result.data : undefined;
}
