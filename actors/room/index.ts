/** The minimal room (`room/<CODE>`) a lobby starts, until the relay room lands. */
export { roomKind } from "./room-kind.ts";
export type { RoomOptions } from "./room-kind.ts";
export { roomFrame } from "./room-machine.ts";
export { parseRoomMessage, roomMessageSchema } from "./room-messages.ts";
export type { RoomMessage } from "./room-messages.ts";
export { roomSchemaVersion, roomStateSchema, seatedPlayers, upgradeRoomState } from "./room-state.ts";
export type { RoomState } from "./room-state.ts";
