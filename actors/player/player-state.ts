import { z } from "zod";
import { codeSchema } from "../common/index.ts";
import { entrySchema, searchRecordSchema } from "./whereabouts.ts";

/**
 * A player's registry entry: where the player is (its lobby, its queue search, its match room), the
 * entry it is being taken into, the places it is being taken out of, and the creates it asked for
 * recently.
 */

/**
 * The version of the player state's shape (3: every kind of place — the search, the entry under way,
 * departures from queues as well as lobbies; 4: the matched lobby a party search placed the player in).
 */
export const playerSchemaVersion = 4;

/** A lobby the player moved away from is told `leave` again this often until it confirms (`left`). */
export const leaveRetryMs = 3_000;

/** …at most this many times: a lobby that never answers has ended (or was never there). */
export const maxLeaveTries = 6;

/**
 * How long an entry's intent waits for its gateway to say how the entry went. A gateway that died
 * between the entry and its report never says: the entry is then taken as made, and its departures are
 * carried out, so the player ends up in one place (the new one, or none), never in two.
 */
export const entryIntentMs = 15_000;

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

/** A place being left: a lobby until it confirms, or a queue search told to cancel. */
const leavingSchema = z.union([
  z.strictObject({ lobby: z.string().min(1), tries: z.number().int().min(1) }),
  z.strictObject({ search: searchRecordSchema, tries: z.number().int().min(1) }),
]);

/** One departure under way. */
export type Leaving = z.output<typeof leavingSchema>;

const departureSchema = z.union([
  z.strictObject({ lobby: z.string().min(1) }),
  z.strictObject({ search: searchRecordSchema }),
]);

/** The whole player state. */
export const playerStateSchema = z.strictObject({
  /** The key of the lobby the player is in (`lobby/<CODE>`), or null. */
  lobby: z.string().min(1).nullable(),
  creates: z.array(createRecordSchema),
  /**
   * The departures under way (actions across actors are recorded first, then driven): lobbies the
   * player left for another place that have not confirmed it yet (`left`), and queue searches it gave up
   * (told `cancel` a few times; the queue confirms nothing). Kept in the snapshot and driven by a timer,
   * so a crash of either node between the two steps still ends with the player in one place.
   */
  leaving: z.array(leavingSchema),
  /** The queue search the player is in (alone or with its lobby's party), or null. */
  search: searchRecordSchema.nullable(),
  /**
   * The entry a gateway is carrying out, as the rule allowed it, with the departures it will cause once
   * made (`entered`, or the lobby's own `joined`). Null when none is under way.
   */
  entering: z
    .strictObject({
      entry: entrySchema,
      leave: z.array(departureSchema),
      /** ctx.now past which the entry is taken as made (see entryIntentMs). */
      until: z.number(),
    })
    .nullable(),
  /**
   * The room the player sat down in directly (`createRoom`, `joinRoom`), as its gateway reported the
   * entry; cleared when it leaves the seat, or found gone when a refusal is checked against the room.
   * A lobby's own room is its lobby's to know (the gateway names it as `seated`).
   */
  room: z.string().min(1).nullable(),
  /**
   * The matched lobby (`mmlobby/…`) the queue placed the player's party in, beside the private lobby the
   * party searched from (which stays: the members come back to it). A search alone records its matched
   * lobby as `lobby`. Left by any lobby or search the player goes to next.
   */
  matched: z.string().min(1).nullable(),
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

const noSearch = { search: null, entering: null, room: null, matched: null };

/** Reads a player snapshot of a known schema version. */
export function upgradePlayerState(state: unknown, version: number): PlayerState {
  // Version 1 had no pending leaves; versions 1 and 2 knew no searches and no entries under way (their
  // pending leaves were all of lobbies, the shape they still have) and no rooms sat down in directly.
  if (version === 1) return playerStateSchema.parse({ ...(state as object), leaving: [], ...noSearch });
  if (version === 2) return playerStateSchema.parse({ ...(state as object), ...noSearch });
  // Version 3 recorded no placement of a party.
  if (version === 3) return playerStateSchema.parse({ ...(state as object), matched: null });
  if (version !== playerSchemaVersion) throw new RangeError(`unknown player schema version ${version}`);
  return playerStateSchema.parse(state);
}
