import { z } from "zod";
import { lobbyListingSchema } from "../common/index.ts";
import { roomListingSchema } from "../room/index.ts";

/** The browse list: one line per public lobby and per public room in setup, keyed by code. */

/** The version of the directory state's shape (rooms and the sweep were added with defaults). */
export const directorySchemaVersion = 1;

/** A public lobby's line, as last reported, with when it was. */
export const directoryEntrySchema = lobbyListingSchema
  .pick({ code: true, mode: true, map: true, freeSeats: true, members: true, playing: true })
  .extend({ at: z.number() });

/** One public lobby's line. */
export type DirectoryEntry = z.output<typeof directoryEntrySchema>;

/** A public room's line, as last reported, with when it was. */
export const directoryRoomEntrySchema = roomListingSchema.omit({ type: true }).extend({ at: z.number() });

/** One public room's line. */
export type DirectoryRoomEntry = z.output<typeof directoryRoomEntrySchema>;

/** The whole directory state. */
export const directoryStateSchema = z.strictObject({
  listings: z.record(z.string(), directoryEntrySchema),
  rooms: z.record(z.string(), directoryRoomEntrySchema).default({}),
  /** When the `sweep` timer fires next; null while the list is empty (no timer). */
  sweepAt: z.number().nullable().default(null),
});

/** The directory's state. */
export type DirectoryState = z.output<typeof directoryStateSchema>;

/** Reads a directory snapshot of a known schema version. */
export function upgradeDirectoryState(state: unknown, version: number): DirectoryState {
  if (version !== directorySchemaVersion) throw new RangeError(`unknown directory schema version ${version}`);
  return directoryStateSchema.parse(state);
}
