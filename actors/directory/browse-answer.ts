import type { LobbyListing } from "../common/listing.ts";
import type { RoomListing } from "../room/room-listing-frames.ts";

// Types only, from leaf files: the SDK hands browse answers on as these, and its package must not reach
// the directory's machine through them.

/** One lobby line of a browse answer: the browse fields of its listing (a query answers with the rest). */
export type BrowseLine = Pick<LobbyListing, "code" | "mode" | "map" | "freeSeats" | "members" | "playing">;

/** One room line of a browse answer. */
export type BrowseRoomLine = Omit<RoomListing, "type">;

/** A browse answer: lobbies and rooms, each sorted by code (empty when the kind was not asked for). */
export interface BrowseAnswer {
  readonly lobbies: BrowseLine[];
  readonly rooms: BrowseRoomLine[];
}
