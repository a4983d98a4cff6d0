import { z } from "zod";
import { codeSchema } from "../common/index.ts";

/** A player's registry entry: which lobby it is in, and the lobby creates it asked for recently. */

/** The version of the player state's shape. */
export const playerSchemaVersion = 2;

/** A lobby the player moved away from is told `leave` again this often until it confirms (`left`). */
export const leaveRetryMs = 3_000;

/** …at most this many times: a lobby that never answers has ended (or was never there). */
export const maxLeaveTries = 6;

/**
 * How long a create request is remembered, so a retry of it gets the same code: as long as the runtime
 * keeps request results (the SDK's retry deadline plus the failure timeout).
 */
export const createMemoryMs = 2 * 60 * 1000;

/** At most this many creates are remembered, so a player who creates lobby after lobby keeps a small state. */
export const maxRememberedCreates = 16;

/** A lobby create the player asked for: its request id and the code it was given. */
export const createRecordSchema = z.strictObject({
  session: z.string().min(1).max(128),
  id: z.number().int().min(0),
  code: codeSchema,
  /** ctx.now when recorded; entries older than createMemoryMs are pruned. */
  at: z.number(),
});

/** One remembered create. */
export type CreateRecord = z.output<typeof createRecordSchema>;

/** The whole player state. */
export const playerStateSchema = z.strictObject({
  /** The key of the lobby the player is in (`lobby/<CODE>`), or null. */
  lobby: z.string().min(1).nullable(),
  creates: z.array(createRecordSchema),
  /**
   * The intent of a move between lobbies (FLEET-PROTOCOL, "Actions across actors"): lobbies the player
   * left for another one that have not confirmed it yet. Kept in the snapshot and driven by a timer, so a
   * crash of either node between the two steps still ends with the player in exactly one lobby.
   */
  leaving: z.array(z.strictObject({ lobby: z.string().min(1), tries: z.number().int().min(1) })),
  /**
   * The player's running match room (SPEC §4): the queue that made it (which keeps the record and the
   * player's token) and the room's code. An index for the gateway of a returning player; the queue is
   * the authority, and a gateway that finds the room gone clears both.
   */
  match: z
    .strictObject({ queue: z.string().min(1), room: z.string().min(1) })
    .nullable()
    .default(null),
});

/** A player registry entry's state. */
export type PlayerState = z.output<typeof playerStateSchema>;

/** Reads a player snapshot of a known schema version. */
export function upgradePlayerState(state: unknown, version: number): PlayerState {
  // Version 1 had no pending leaves.
  if (version === 1) return playerStateSchema.parse({ ...(state as object), leaving: [] });
  if (version !== playerSchemaVersion) throw new RangeError(`unknown player schema version ${version}`);
  return playerStateSchema.parse(state);
}
