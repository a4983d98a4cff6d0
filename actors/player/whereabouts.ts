import { z } from "zod";
import type { ErrorCode } from "../runtime/index.ts";

/**
 * Where a player may be (all lobby kinds): in at most one lobby (private, activity or matched), at most one
 * queue search and at most one room. `decideEntry` is the one rule every way in goes through: given where
 * the player is and where it asks to go, it names the places to leave, or refuses the entry. Pure, so the
 * registry can record its answer as an intent before anything is carried out.
 */

const keySchema = z.string().min(1).max(200);

/** A way in, as a gateway asks the registry about it. */
export const entrySchema = z.discriminatedUnion("kind", [
  /**
   * A private lobby, joined by code or created: a create names the lobby of the code it drew, so its retry
   * is an entry into the lobby it may already have made, not a new one to leave it for. `key` null: a
   * lobby not named yet, which the rule treats as new.
   */
  z.strictObject({ kind: z.literal("lobby"), key: keySchema.nullable() }),
  /** An activity's lobbies (the directory names the lobby only after the rule allowed the entry). */
  z.strictObject({ kind: z.literal("activity"), activity: z.string().min(1).max(64) }),
  /** A queue search alone (`findLobby`, `findOrCreateLobby`), or a matched lobby's create (`createLobby`). */
  z.strictObject({ kind: z.literal("search"), queue: keySchema }),
  /** A private lobby queued as one party by its host; every member's registry is asked the same entry. */
  z.strictObject({ kind: z.literal("partySearch"), queue: keySchema, lobby: keySchema, host: keySchema }),
  /** A relay room, joined directly or with its match's token, or created (`key` null). */
  z.strictObject({ kind: z.literal("room"), key: keySchema.nullable() }),
]);

/** One way in. */
export type Entry = z.output<typeof entrySchema>;

/** A queue search the player is in, and the party it searches with (its private lobby), if any. */
export const searchRecordSchema = z.strictObject({
  queue: keySchema,
  /** The queue's entry id, once the queue answered; a cancel names it, so it never hits a later search. */
  entry: z.string().min(1).max(64).nullable(),
  party: z.strictObject({ lobby: keySchema, host: keySchema }).nullable(),
});

/** A search record. */
export type SearchRecord = z.output<typeof searchRecordSchema>;

/** Where a player is, as the rule reads it. */
export interface Whereabouts {
  /** The lobby (`lobby/…`, `activityLobby/…`, `mmlobby/…`), or null. */
  readonly lobby: string | null;
  readonly search: SearchRecord | null;
  /** The room the player is seated in (`room/…`), or null. */
  readonly room: string | null;
  /** The matched lobby the player's party was placed in, beside its private lobby (`lobby`), if any. */
  readonly matched?: string | null;
}

/** A place the rule takes the player out of: a lobby (told `leave`) or a queue (told `cancel`). */
export type Departure = { readonly lobby: string } | { readonly search: SearchRecord };

/** The rule's answer: the entry goes ahead after these departures, or is refused (and nothing changes). */
export type Decision =
  | { readonly ok: true; readonly leave: readonly Departure[] }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string };

function allowed(...leave: (Departure | undefined)[]): Decision {
  return { ok: true, leave: leave.filter((d): d is Departure => d !== undefined) };
}

function refused(code: ErrorCode, message: string): Decision {
  return { ok: false, code, message };
}

/** The entry puts the player back where it already is: a rejoin resends the state and leaves nothing. */
function isHere(where: Whereabouts, entry: Entry): boolean {
  if (entry.kind === "lobby") return entry.key !== null && entry.key === where.lobby;
  if (entry.kind === "room") return entry.key !== null && entry.key === where.room;
  if (entry.kind === "partySearch") return where.search?.party?.lobby === entry.lobby;
  return false;
}

/** The lobby to leave for this entry: any other lobby (activity lobbies are left by their directory). */
function lobbyToLeave(where: Whereabouts, entry: Entry): Departure | undefined {
  if (where.lobby === null) return undefined;
  if (entry.kind === "lobby" && entry.key === where.lobby) return undefined;
  // A move between lobbies of one activity is the directory's (it is told the previous lobby).
  if (entry.kind === "activity" && where.lobby.startsWith(`activityLobby/${entry.activity}/`))
    return undefined;
  return { lobby: where.lobby };
}

/** The matched lobby a party was placed in: left by any lobby or search, kept by a room. */
function matchedToLeave(where: Whereabouts): Departure | undefined {
  const matched = where.matched ?? null;
  return matched === null || matched === where.lobby ? undefined : { lobby: matched };
}

/** The search to give up for this entry, unless it is the same queue (the queue refuses a second search). */
function searchToLeave(where: Whereabouts, entry: Entry): Departure | undefined {
  const search = where.search;
  if (search === null) return undefined;
  if ((entry.kind === "search" || entry.kind === "partySearch") && entry.queue === search.queue)
    return undefined;
  return { search };
}

/**
 * The rule. In this order:
 * - seated in a room: another room, another lobby or any search is refused `ALREADY_PLAYING` until the
 *   player left the room or it ended (its own lobby and room may be entered again);
 * - in a party search: everything but its own lobby is refused `SEARCHING` until the host cancelled the
 *   search or the player left the lobby;
 * - otherwise: a lobby (any kind) leaves the other lobby and the search; a search leaves the lobby and
 *   another queue's search; both leave the matched lobby a party search placed the player in; a party
 *   search needs the player in that lobby (`NOT_IN_LOBBY`); a room leaves the search (a search never
 *   matches a player who sat down elsewhere) and keeps the lobby.
 */
export function decideEntry(where: Whereabouts, entry: Entry): Decision {
  if (isHere(where, entry)) return allowed();
  if (where.room !== null) {
    return refused("ALREADY_PLAYING", `you are seated in ${where.room}: leave it (or let it end) first`);
  }
  const party = where.search?.party;
  if (party !== null && party !== undefined) {
    return refused(
      "SEARCHING",
      `${party.lobby} is searching as a party: its host cancels, or you leave it, first`,
    );
  }
  switch (entry.kind) {
    case "lobby":
    case "activity":
    case "search":
      return allowed(lobbyToLeave(where, entry), matchedToLeave(where), searchToLeave(where, entry));
    case "partySearch":
      if (where.lobby !== entry.lobby) return refused("NOT_IN_LOBBY", `you are not in ${entry.lobby}`);
      return allowed(matchedToLeave(where), searchToLeave(where, entry));
    case "room":
      return allowed(searchToLeave(where, entry));
  }
}
