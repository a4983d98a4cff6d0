import type { Effect } from "../runtime/index.ts";
import { directoryKey, type LobbyListing } from "../common/index.ts";
import type { LobbyOptions } from "./lobby-options.ts";
import type { LobbyState } from "./lobby-state.ts";
import { publicValues } from "./lobby-data-values.ts";
import { seatLimit } from "./lobby-door.ts";

/** A public lobby keeps its line in the directory current; a private one is never listed anywhere. */

/** A public string value of at most `max` characters, as the browse list's `mode` and `map` take it. */
function listedText(value: unknown, max: number): string | null {
  return typeof value === "string" && value.length <= max ? value : null;
}

/** The listing message for a lobby's current state: only its public data is in it. */
export function listingOf(state: LobbyState, options: LobbyOptions): LobbyListing {
  const data = publicValues(state.data);
  const seats = seatLimit(state, options);
  return {
    type: "listing",
    code: state.code,
    mode: listedText(data.mode, 64),
    map: listedText(data.map, 256),
    freeSeats: Math.max(0, seats - state.members.length),
    members: state.members.length,
    playing: state.room !== null,
    data,
    locked: state.door.locked,
    hasPassword: state.door.passwordHash !== null,
    maxMembers: seats,
    createdAt: state.createdAt,
  };
}

/** Listings are built field by field in one order, so equal listings serialise equally. */
function sameListing(a: LobbyListing, b: LobbyListing): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The directory effect owed after a transition from `before` to `after`: the listing when a listed field
 * changed, the unlist when the lobby stopped, nothing for a private lobby.
 */
export function visibilityEffects(
  before: LobbyState | null,
  after: LobbyState,
  stopped: boolean,
  options: LobbyOptions,
): Effect[] {
  if (!after.public) return [];
  if (stopped) return [{ type: "tell", to: directoryKey, message: { type: "unlist", code: after.code } }];
  if (before === after) return [];
  const listing = listingOf(after, options);
  if (before !== null && sameListing(listingOf(before, options), listing)) return [];
  return [{ type: "tell", to: directoryKey, message: listing }];
}

/**
 * What a lobby tells the directory when asked (`listingCheck`) or after a restore on a new node (a tell it
 * sent before its old node died may be lost): a public lobby its listing; a private one asked about (a
 * stale line) its unlist, and nothing after a restore.
 */
export function announceEffects(state: LobbyState, options: LobbyOptions, asked: boolean): Effect[] {
  if (!state.public && !asked) return [];
  const message = state.public ? listingOf(state, options) : { type: "unlist", code: state.code };
  return [{ type: "tell", to: directoryKey, message }];
}
