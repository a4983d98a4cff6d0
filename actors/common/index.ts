/**
 * The vocabulary every kind shares: the keys of the kinds others address, codes, the field schemas of
 * players, seats and modes, a room's creation argument, and the browse list's messages.
 */
export { directoryKey, keyName, lobbyKey, playerKey, roomKey } from "./keys.ts";
export { drawCode, normalizeCode } from "./codes.ts";
export {
  codeSchema,
  modeSchema,
  playerIdSchema,
  playerNameSchema,
  playerRefSchema,
  seatSchema,
} from "./fields.ts";
export type { PlayerRef, Seat } from "./fields.ts";
export { blobRefSchema, roomInitSchema, transferTokenSchema } from "./room-init.ts";
export type { RoomInit } from "./room-init.ts";
export { listingCheckSchema, lobbyListingSchema, lobbyUnlistSchema } from "./listing.ts";
export type { LobbyListing } from "./listing.ts";
