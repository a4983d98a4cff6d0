import type { ActorKind } from "../runtime/types.ts";
import { createRoom, handleRoom } from "./room-machine.ts";
import type { RoomMessage } from "./room-messages.ts";
import { parseRoomMessage } from "./room-messages.ts";
import type { RoomState } from "./room-state.ts";
import { roomSchemaVersion, upgradeRoomState } from "./room-state.ts";

/** The minimal room kind (`room/<CODE>`) that lobbies start. */

/** Options of the room kind; none yet, kept so every kind is made the same way. */
export type RoomOptions = Record<string, never>;

/** Makes the room kind. */
export function roomKind(_options: RoomOptions = {}): ActorKind<RoomState, RoomMessage> {
  return {
    kind: "room",
    schemaVersion: roomSchemaVersion,
    create: (init) => createRoom(init),
    parse: parseRoomMessage,
    handle: handleRoom,
    upgrade: upgradeRoomState,
    // The minimal room arms no timers.
    idle: () => true,
  };
}
