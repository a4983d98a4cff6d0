import type { ActorContext, Restored, TimerFired, Transition } from "../runtime/index.ts";
import type { LobbyListing } from "../lobby/index.ts";
import type { DirectoryMessage } from "./directory-messages.ts";
import type { DirectoryEntry, DirectoryState } from "./directory-state.ts";

/** The directory's transition function. */

type Step = Transition<DirectoryState>;

/** The most lines one browse answer carries; a frame must stay small. */
export const browseLimit = 100;

function sameEntry(a: DirectoryEntry, b: LobbyListing): boolean {
  return (
    a.mode === b.mode &&
    a.map === b.map &&
    a.freeSeats === b.freeSeats &&
    a.members === b.members &&
    a.playing === b.playing
  );
}

function listing(state: DirectoryState, message: LobbyListing, now: number): Step {
  const current = Object.hasOwn(state.listings, message.code) ? state.listings[message.code] : undefined;
  if (current !== undefined && sameEntry(current, message)) return { state, effects: [{ type: "reply" }] };
  const { type: _type, ...fields } = message;
  const listings = { ...state.listings, [message.code]: { ...fields, at: now } };
  return { state: { listings }, effects: [{ type: "reply" }] };
}

function unlist(state: DirectoryState, code: string): Step {
  if (!Object.hasOwn(state.listings, code)) return { state, effects: [{ type: "reply" }] };
  const listings = Object.fromEntries(Object.entries(state.listings).filter(([key]) => key !== code));
  return { state: { listings }, effects: [{ type: "reply" }] };
}

/** One line of a browse answer. */
export type BrowseLine = Omit<LobbyListing, "type">;

/** The browse answer: lobbies sorted by code, of one mode if asked, with a free seat if asked. */
export function browse(state: DirectoryState, mode?: string, freeOnly?: boolean): BrowseLine[] {
  return Object.values(state.listings)
    .filter((e) => (mode === undefined || e.mode === mode) && (freeOnly !== true || e.freeSeats > 0))
    .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))
    .slice(0, browseLimit)
    .map(({ at: _at, ...line }) => line);
}

/** Handles one directory message. */
export function handleDirectory(
  state: DirectoryState,
  message: DirectoryMessage | TimerFired | Restored,
  ctx: ActorContext,
): Step {
  switch (message.type) {
    case "listing":
      return listing(state, message, ctx.now);
    case "unlist":
      return unlist(state, message.code);
    case "browse":
      return {
        state,
        effects: [{ type: "reply", value: { lobbies: browse(state, message.mode, message.freeOnly) } }],
      };
    case "timer":
    case "restored":
      return { state, effects: [] };
  }
}
