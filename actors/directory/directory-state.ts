import { z } from "zod";
import { lobbyListingSchema } from "../lobby/index.ts";

/** The browse list: one line per public lobby, keyed by code. */

/** The version of the directory state's shape. */
export const directorySchemaVersion = 1;

/** A public lobby's line, as last reported, with when it was. */
export const directoryEntrySchema = lobbyListingSchema.omit({ type: true }).extend({ at: z.number() });

/** One public lobby's line. */
export type DirectoryEntry = z.output<typeof directoryEntrySchema>;

/** The whole directory state. */
export const directoryStateSchema = z.strictObject({
  listings: z.record(z.string(), directoryEntrySchema),
});

/** The directory's state. */
export type DirectoryState = z.output<typeof directoryStateSchema>;

/** Reads a directory snapshot of a known schema version. */
export function upgradeDirectoryState(state: unknown, version: number): DirectoryState {
  if (version !== directorySchemaVersion) throw new RangeError(`unknown directory schema version ${version}`);
  return directoryStateSchema.parse(state);
}
