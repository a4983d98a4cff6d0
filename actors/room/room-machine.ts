import type { ActorContext, Effect, PushFrame, Restored, TimerFired, Transition } from "../runtime/types.ts";
import { roomInitSchema } from "../lobby/index.ts";
import type { RoomMessage } from "./room-messages.ts";
import type { RoomState } from "./room-state.ts";
import { seatedPlayers } from "./room-state.ts";

/** The minimal room's transition function, until the relay room (SPEC §5) replaces it. */

type Step = Transition<RoomState>;

/** The `room` frame seated players receive. */
export function roomFrame(state: RoomState): PushFrame {
  const { code, mode, seats, host, ended } = state;
  return { type: "room", code, mode, seats, host, ended };
}

function pushToSeated(state: RoomState): Effect {
  const present = seatedPlayers(state).filter((p) => !state.left.includes(p));
  return { type: "push", to: present, frame: roomFrame(state) };
}

/** A room spawned by a lobby: every seated human is told where it sits. An invalid init throws (a bug). */
export function createRoom(init: unknown): Step {
  const state: RoomState = { ...roomInitSchema.parse(init), ended: false, left: [] };
  return { state, effects: [pushToSeated(state)] };
}

function leaveSeat(state: RoomState, player: string): Step {
  if (!seatedPlayers(state).includes(player) || state.left.includes(player)) {
    return { state, effects: [{ type: "reply" }] };
  }
  return { state: { ...state, left: [...state.left, player] }, effects: [{ type: "reply" }] };
}

/** A seated player reports the end: the lobby is told (it brings everyone back later) and the room stops. */
function finish(state: RoomState, player: string): Step {
  if (!seatedPlayers(state).includes(player)) {
    return {
      state,
      effects: [
        { type: "reject", code: "NOT_IN_LOBBY", message: `${player} has no seat in room ${state.code}` },
      ],
    };
  }
  if (state.ended) return { state, effects: [{ type: "reply" }] };
  const next: RoomState = { ...state, ended: true };
  return {
    state: next,
    effects: [
      pushToSeated(next),
      { type: "tell", to: next.lobby, message: { type: "roomEnded", room: next.code } },
      { type: "reply" },
      { type: "stop" },
    ],
  };
}

/** Handles one room message. */
export function handleRoom(
  state: RoomState,
  message: RoomMessage | TimerFired | Restored,
  _ctx: ActorContext,
): Step {
  switch (message.type) {
    case "end":
      // The lobby already moved everyone back; it expects no roomEnded.
      return { state: { ...state, ended: true }, effects: [{ type: "reply" }, { type: "stop" }] };
    case "leaveSeat":
      return leaveSeat(state, message.player);
    case "finish":
      return finish(state, message.player);
    case "timer":
    case "restored":
      return { state, effects: [] };
  }
}
