import type { Effect } from "../runtime/index.ts";
import { directoryKey, type LobbyListing } from "../common/index.ts";
import type { LobbyOptions } from "./lobby-options.ts";
import type { LobbyState } from "./lobby-state.ts";

/** A public lobby keeps its line in the directory current; a private one is never listed anywhere. */

/** The listing message for a lobby's current state. */
export function listingOf(state: LobbyState, options: LobbyOptions): LobbyListing {
  return {
    type: "listing",
    code: state.code,
    mode: state.metadata?.mode ?? null,
    map: state.metadata?.map ?? null,
    freeSeats: Math.max(0, options.maxMembers - state.members.length),
    members: state.members.length,
    playing: state.room !== null,
    // Today's metadata is the lobby's public data; the lock, the password and the create time follow.
    data: { ...state.metadata },
    locked: false,
    hasPassword: false,
    maxMembers: options.maxMembers,
    createdAt: 0,
  };
}

function sameListing(a: LobbyListing, b: LobbyListing): boolean {
  return a.freeSeats === b.freeSeats && a.members === b.members && a.playing === b.playing;
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
