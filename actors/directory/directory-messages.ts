import { z } from "zod";
import { restoredSchema, timerFiredSchema, type Restored, type TimerFired } from "../runtime/index.ts";
import { lobbyListingSchema, lobbyUnlistSchema, modeSchema } from "../common/index.ts";
import { roomListingSchema, roomUnlistSchema } from "../room/index.ts";

/** What the directory accepts: public lobbies' and rooms' lines, and browse requests from gateways. */

/** Which lines a browse wants: lobbies, rooms, or both. */
export const browseKindSchema = z.enum(["lobbies", "rooms", "all"]);

/** Which lines a browse wants. */
export type BrowseKind = z.output<typeof browseKindSchema>;

/** A browse request: `kind` (default `all`), one mode, only lines with a free seat. */
export const browseMessageSchema = z.strictObject({
  type: z.literal("browse"),
  kind: browseKindSchema.optional(),
  mode: modeSchema.optional(),
  freeOnly: z.boolean().optional(),
});

/** Every message the directory handles. */
export const directoryMessageSchema = z.discriminatedUnion("type", [
  lobbyListingSchema,
  lobbyUnlistSchema,
  roomListingSchema,
  roomUnlistSchema,
  browseMessageSchema,
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
