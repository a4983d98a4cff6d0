import type { ActorKind, Effect, Restored, TimerFired, Transition } from "../runtime/index.ts";
import { createRoom } from "./room-create.ts";
import { handleRoom } from "./room-machine.ts";
import { abandonFired, abandonTimerName, watchAbandon } from "./room-abandon.ts";
import type { RoomMessage } from "./room-messages.ts";
import { parseRoomMessage } from "./room-messages.ts";
import { humanSeats, type RoomState } from "./room-state.ts";
import { roomSchemaVersion } from "./room-state.ts";
import { upgradeRoomState } from "./room-upgrade.ts";
import { storedRoomState } from "./room-window.ts";
import { releaseBlobOnStop } from "./room-blob.ts";
import { withListing } from "./room-listing.ts";

/** The relay room kind (`room/<CODE>`), SPEC §5. */

/** Options of the room kind; none yet (the bounds are in room-limits.ts), kept so every kind is made alike. */
export type RoomOptions = Record<string, never>;

/** Why a room ended, by the message that ended it. */
const endReasons: Readonly<Record<string, string>> = {
  finish: "finished",
  abort: "aborted",
  end: "lobby",
  serverEnd: "server",
  timer: "abandoned",
};

/**
 * A room that stops owes the studio's backend a `room.ended` event (docs/server-api.md), with the result
 * when the backend ended it with one; it goes before the `stop`.
 */
function withEndEvent(
  before: RoomState,
  message: RoomMessage | TimerFired | Restored,
  transition: Transition<RoomState>,
): Transition<RoomState> {
  if (!transition.effects.some((e) => e.type === "stop")) return transition;
  const ended: Effect = {
    type: "event",
    name: "room.ended",
    data: {
      code: before.code,
      lobby: before.lobby,
      players: humanSeats(before).flatMap((s) => (s.player === null ? [] : [s.player])),
      mode: before.mode,
      reason: endReasons[message.type] ?? "ended",
      result: message.type === "serverEnd" ? message.result : null,
    },
  };
  const effects = transition.effects.filter((e) => e.type !== "stop");
  return { state: transition.state, effects: [...effects, ended, { type: "stop" }] };
}

/** Makes the room kind. */
export function roomKind(_options: RoomOptions = {}): ActorKind<RoomState, RoomMessage> {
  return {
    kind: "room",
    schemaVersion: roomSchemaVersion,
    create: (init, ctx) => withListing(null, createRoom(init, ctx)),
    parse: parseRoomMessage,
    handle: (state, message, ctx) =>
      withEndEvent(
        state,
        message,
        releaseBlobOnStop(
          withListing(
            state,
            message.type === "timer" && message.name === abandonTimerName
              ? abandonFired(state)
              : watchAbandon(handleRoom(state, message, ctx), ctx),
            // Asked by the directory, or restored on a new node: say the line again, changed or not.
            message.type === "listingCheck" || message.type === "restored",
          ),
        ),
      ),
    upgrade: upgradeRoomState,
    // The window of recent turns for players who come back lives in memory; the snapshot keeps its tail.
    stored: storedRoomState,
    // A running clock has its timer armed; a room in setup or paused may rest in the store.
    idle: (state) => state.clock.status !== "running",
    // A match in play is not moved: its seats and clock live here until it ends (FLEET-PROTOCOL, "Rooms").
    pinned: (state) => state.phase === "playing",
  };
}
