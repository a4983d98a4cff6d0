import { reply, type Effect } from "../runtime/index.ts";
import { pushRoom } from "./room-frames.ts";
import type { RoomMessageOf } from "./room-messages.ts";
import type { RoomState } from "./room-state.ts";
import type { Step } from "./room-transition.ts";
import { refuseUnlessHost, refuseUnlessPlaying, refuseUnseated } from "./room-transition.ts";

/** How a room ends: its lobby ends it, a player reports the match over, or the host aborts it. */

/**
 * The match is over: the humans get the final room frame, a lobby that started the room is told
 * `roomEnded` (it brings everyone back), and the room stops.
 */
export function closeRoom(state: RoomState): Step {
  const next: RoomState = { ...state, phase: "ended", clock: { status: "stopped" } };
  const effects: Effect[] = [...pushRoom(next)];
  if (next.lobby !== null) {
    effects.push({ type: "tell", to: next.lobby, message: { type: "roomEnded", room: next.code } });
  }
  return { state: next, effects: [...effects, reply(), { type: "stop" }] };
}

/** The lobby ends the room (its host returned, or it closed): it already moved everyone, so no roomEnded. */
export function end(state: RoomState): Step {
  const next: RoomState = { ...state, phase: "ended", clock: { status: "stopped" } };
  return { state: next, effects: [reply(), { type: "stop" }] };
}

/** A seated player reports that the match is over. */
export function finish(state: RoomState, message: RoomMessageOf<"finish">): Step {
  const refused = refuseUnseated(state, message.player) ?? refuseUnlessPlaying(state);
  return refused ?? closeRoom(state);
}

/** The host ends the match (or, before the start, closes the room). */
export function abort(state: RoomState, message: RoomMessageOf<"abort">): Step {
  return refuseUnlessHost(state, message.player) ?? closeRoom(state);
}
