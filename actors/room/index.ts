/** The relay room (`room/<CODE>`, SPEC §5): seats, AI seats, the turn clock, checksums and chat. */
export { roomKind } from "./room-kind.ts";
export type { RoomOptions } from "./room-kind.ts";
export { directRoomInitSchema, lobbyRoomInitSchema, roomCreateSchema } from "./room-create.ts";
export type { RoomCreate } from "./room-create.ts";
export { roomFrame } from "./room-frames.ts";
export { roomLimits } from "./room-limits.ts";
export {
  heldTurnInputSchema,
  maxRoomResultBytes,
  parseRoomMessage,
  roomMessageSchema,
  roomResultSchema,
} from "./room-messages.ts";
export type { RoomMessage, RoomMessageOf } from "./room-messages.ts";
export { turnTimerName } from "./room-clock.ts";
export { roomSchemaVersion, roomStateSchema, seatedPlayers } from "./room-state.ts";
export type { RoomSeat, RoomState } from "./room-state.ts";
export { upgradeRoomState } from "./room-upgrade.ts";
export type { CommandData, RoomGameOptions, TurnDurability } from "./room-fields.ts";
export {
  chatChannelSchema,
  checksumValueSchema,
  commandDataSchema,
  mapSchema,
  roomOptionsSchema,
  sideSchema,
  teamSchema,
  turnDurabilitySchema,
  turnMsSchema,
  turnSchema,
} from "./room-fields.ts";
export { listed, roomListingOf, roomListingSchema, roomUnlistSchema } from "./room-listing.ts";
export type { RoomListing } from "./room-listing.ts";
