import { z } from "zod";
import { activityIdSchema } from "./activity-settings.ts";
import { activityLobbyKeySchema } from "./activity-keys.ts";

/** An activity directory's snapshot: its open lobbies in creation order and the counter that names new ones. */

/** The version of the directory state's shape. */
export const activityDirectorySchemaVersion = 1;

/** What the directory knows of one of its lobbies: a hint; the lobby itself decides who gets in. */
export const directoryLobbySchema = z.strictObject({
  lobby: activityLobbyKeySchema,
  /** Players as last reported, plus those sent there since (reserved until the next report). */
  players: z.number().int().min(0),
  /** The capacity the lobby was opened with. */
  capacity: z.number().int().min(1),
  /** The lobby takes players, as far as the directory knows. */
  open: z.boolean(),
  /** The number of the last report applied; 0 before the first. */
  version: z.number().int().min(0),
});

/** One lobby as the directory sees it. */
export type DirectoryLobby = z.output<typeof directoryLobbySchema>;

/** The whole directory state. */
export const activityDirectoryStateSchema = z.strictObject({
  activity: activityIdSchema,
  /** The suffix of the next lobby's key; never reused, so a late report of a closed lobby is never mistaken. */
  next: z.number().int().min(1),
  /** Lobbies that have not started or closed, oldest first. */
  lobbies: z.array(directoryLobbySchema),
});

/** An activity directory's state. */
export type ActivityDirectoryState = z.output<typeof activityDirectoryStateSchema>;

/** Reads a directory snapshot of a known schema version. */
export function upgradeActivityDirectoryState(state: unknown, version: number): ActivityDirectoryState {
  if (version !== activityDirectorySchemaVersion) {
    throw new RangeError(`unknown activity directory schema version ${version}`);
  }
  return activityDirectoryStateSchema.parse(state);
}

/** True when the directory would send a joiner to this lobby. */
export function hasRoom(entry: DirectoryLobby): boolean {
  return entry.open && entry.players < entry.capacity;
}
