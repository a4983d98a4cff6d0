import type { Effect } from "../runtime/index.ts";
import { directoryKey } from "../common/index.ts";
import type { RoomListing } from "./room-listing-frames.ts";
import type { RoomState } from "./room-state.ts";
import type { Step } from "./room-transition.ts";

export { roomListingSchema, roomUnlistSchema, type RoomListing } from "./room-listing-frames.ts";

/**
 * A public room in the browse list (docs/rooms.md, "The browse list"): a room created directly with
 * `public: true` is listed while it is in setup — joinable — and unlisted when its match starts or it
 * ends. A private room, and every room a lobby started (it starts at once), is never listed.
 */

/** True when the room belongs in the browse list now. */
export function listed(state: RoomState): boolean {
  return state.public && state.lobby === null && state.phase === "setup";
}

/** The listing message for a room's current state. */
export function roomListingOf(state: RoomState): RoomListing {
  return {
    type: "roomListing",
    code: state.code,
    mode: state.mode,
    map: state.map,
    seats: state.seats.length,
    freeSeats: state.seats.filter((s) => s.player === null && !s.ai).length,
    players: state.seats.filter((s) => s.player !== null).length,
  };
}

function sameListing(a: RoomListing, b: RoomListing): boolean {
  return (
    a.mode === b.mode &&
    a.map === b.map &&
    a.seats === b.seats &&
    a.freeSeats === b.freeSeats &&
    a.players === b.players
  );
}

function tell(message: unknown): Effect {
  return { type: "tell", to: directoryKey, message };
}

/**
 * The directory effect owed after a transition: the listing when a listed field changed (or the room was
 * just made), the unlist when it left the list (started, ended, stopped). With `announce` (the directory
 * asked, or the room was restored on a new node and a tell of its old node may be lost) it says its line
 * again either way — a public room only: a private one was never listed.
 */
export function listingEffects(
  before: RoomState | null,
  after: RoomState,
  stopped: boolean,
  announce: boolean,
): Effect[] {
  if (!after.public || after.lobby !== null) return [];
  const now = listed(after) && !stopped;
  if (announce) return [now ? tell(roomListingOf(after)) : tell({ type: "roomUnlist", code: after.code })];
  const was = before !== null && listed(before);
  if (!now) return was ? [tell({ type: "roomUnlist", code: after.code })] : [];
  const listing = roomListingOf(after);
  if (was && before !== after && sameListing(roomListingOf(before), listing)) return [];
  if (was && before === after) return [];
  return [tell(listing)];
}

/** Adds the listing effects to a room transition, keeping `stop` last. */
export function withListing(before: RoomState | null, step: Step, announce = false): Step {
  const stopped = step.effects.some((e) => e.type === "stop");
  const effects = listingEffects(before, step.state, stopped, announce);
  if (effects.length === 0) return step;
  const kept = step.effects.filter((e) => e.type !== "stop");
  return { ...step, effects: [...kept, ...effects, ...(stopped ? [{ type: "stop" } as const] : [])] };
}
