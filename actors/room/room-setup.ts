import { pushTo, refuse, reply, type ActorContext } from "../runtime/index.ts";
import { startMatch } from "./room-clock.ts";
import { pushRoom, roomFrame } from "./room-frames.ts";
import type { RoomMessageOf } from "./room-messages.ts";
import { askForTurns } from "./room-recovery.ts";
import type { RoomSeat, RoomState } from "./room-state.ts";
import { humanSeats, seatOf, withSeat } from "./room-state.ts";
import type { Step } from "./room-transition.ts";
import { notSeated, refuseUnlessHost, unchanged, withEffects } from "./room-transition.ts";

/** Before the start of a room created directly: seats, the host's choices and the ready rule. */

function refuseStarted(state: RoomState): Step | undefined {
  return state.phase === "setup"
    ? undefined
    : refuse(state, "ALREADY_PLAYING", `the match in room ${state.code} has started`);
}

/** True when the match may start: every human seat is ready and connected. */
export function everyoneReady(state: RoomState): boolean {
  const humans = humanSeats(state);
  return humans.length > 0 && humans.every((s) => s.ready && s.connected);
}

/** The room frame for everyone, or the start when the change made everyone ready. */
export function afterSetupChange(state: RoomState, ctx: ActorContext): Step {
  if (state.phase === "setup" && everyoneReady(state)) return startMatch(state, ctx);
  return { state, effects: pushRoom(state) };
}

function freeSeat(state: RoomState, side: number | undefined): RoomSeat | "taken" | "full" {
  const isFree = (s: RoomSeat): boolean => s.player === null && !s.ai;
  if (side === undefined) return state.seats.find(isFree) ?? "full";
  const seat = state.seats.find((s) => s.seat === side);
  return seat !== undefined && isFree(seat) ? seat : "taken";
}

/** Takes the next free seat (or the one named). A player already seated is sent the room again. */
export function join(state: RoomState, message: RoomMessageOf<"join">): Step {
  const { id, name } = message.player;
  const mine = seatOf(state, id);
  // A repeated join (the SDK joins its room again after a reconnect) is answered with the room and, while
  // a failover waits for this seat's turns, the question again.
  if (mine)
    return {
      state,
      effects: [
        ...pushTo([id], roomFrame(state)),
        ...askForTurns(state, [id]),
        reply({ room: state.code, side: mine.seat }),
      ],
    };
  const started = refuseStarted(state);
  if (started) return started;
  const seat = freeSeat(state, message.side);
  if (seat === "full") return refuse(state, "FULL", `room ${state.code} has no free seat`);
  if (seat === "taken") return refuse(state, "INVALID", `side ${message.side ?? -1} is not a free seat`);
  const next = withSeat(state, seat.seat, { player: id, name, ready: false, connected: true });
  return { state: next, effects: [...pushRoom(next), reply({ room: state.code, side: seat.seat })] };
}

/** The host marks a free seat as AI, or clears it again; side 0 stays human (the seed's `set_ai`). */
export function setAi(state: RoomState, message: RoomMessageOf<"setAi">): Step {
  const refused = refuseUnlessHost(state, message.player) ?? refuseStarted(state);
  if (refused) return refused;
  const seat = state.seats.find((s) => s.seat === message.side);
  if (seat === undefined) return refuse(state, "INVALID", `room ${state.code} has no side ${message.side}`);
  if (seat.seat === 0) return refuse(state, "INVALID", "side 0 stays human");
  if (seat.player !== null) return refuse(state, "INVALID", `side ${seat.seat} has a player`);
  if (seat.ai === message.ai) return unchanged(state);
  const next = withSeat(state, seat.seat, { ai: message.ai });
  return { state: next, effects: [...pushRoom(next), reply()] };
}

/** A human says it is ready (or not); when every human seat is ready the match starts. */
export function ready(state: RoomState, message: RoomMessageOf<"ready">, ctx: ActorContext): Step {
  const seat = seatOf(state, message.player);
  if (seat === undefined) return notSeated(state, message.player);
  const started = refuseStarted(state);
  if (started) return started;
  if (seat.ready === message.ready) return unchanged(state);
  const next = withSeat(state, seat.seat, { ready: message.ready });
  return withEffects(afterSetupChange(next, ctx), reply());
}

/**
 * The host changes mode, map, teams or options. Options are replaced as a whole. Every ready flag is
 * cleared: the others agreed to a different match.
 */
export function setup(state: RoomState, message: RoomMessageOf<"setup">): Step {
  const refused = refuseUnlessHost(state, message.player) ?? refuseStarted(state);
  if (refused) return refused;
  const { teams } = message;
  if (teams !== undefined && teams.length !== state.seats.length) {
    return refuse(state, "INVALID", `teams needs one team for each of the ${state.seats.length} seats`);
  }
  const next: RoomState = {
    ...state,
    mode: message.mode ?? state.mode,
    map: message.map === undefined ? state.map : message.map,
    options: message.options ?? state.options,
    seats: state.seats.map((s, i) => ({ ...s, team: teams?.[i] ?? s.team, ready: false })),
  };
  return { state: next, effects: [...pushRoom(next), reply()] };
}
