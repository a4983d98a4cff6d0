/** Private invite-code lobbies (SPEC §1) and the protocol shapes other kinds share with them. */
export { lobbyKind } from "./lobby-kind.ts";
export { defaultLobbyOptions, lobbyOptionsSchema, teamSizeOf } from "./lobby-options.ts";
export type { LobbyOptions } from "./lobby-options.ts";
export { directoryKey, drawCode, keyName, lobbyKey, normalizeCode, playerKey, roomKey } from "./codes.ts";
export {
  codeSchema,
  metadataSchema,
  modeSchema,
  playerIdSchema,
  playerNameSchema,
  seatSchema,
} from "./fields.ts";
export type { LobbyMetadata, Seat } from "./fields.ts";
export { lobbyInitSchema, lobbyMessageSchema, parseLobbyMessage, playerRefSchema } from "./lobby-messages.ts";
export type { LobbyInit, LobbyMessage, LobbyMessageOf, PlayerRef } from "./lobby-messages.ts";
export { lobbySchemaVersion, lobbyStateSchema, upgradeLobbyState } from "./lobby-state.ts";
export type { LobbyRoom, LobbyState, Member } from "./lobby-state.ts";
export { lobbyFrame } from "./lobby-frames.ts";
export { lobbyIdle } from "./lobby-machine.ts";
export { graceTimerName, returnTimerName } from "./lobby-timers.ts";
export { membersFit, seatMembers, teamOf } from "./seats.ts";
export { blobRefSchema, roomInitSchema, transferTokenSchema } from "./room-init.ts";
export type { RoomInit } from "./room-init.ts";
export { restoredSchema, timerFiredSchema } from "./system-messages.ts";
export { listingCheckSchema, listingOf, lobbyListingSchema, lobbyUnlistSchema } from "./visibility.ts";
export type { LobbyListing } from "./visibility.ts";
