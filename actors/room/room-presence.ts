import { pushTo, andThen, refuse, reply, type ActorContext, type Effect } from "../runtime/index.ts";
import { pauseClock, resumeClock } from "./room-clock.ts";
import { pausedFrame, pushRoom, pushToHumans, roomFrame } from "./room-frames.ts";
import { handToAi } from "./room-handover.ts";
import type { RoomMessageOf } from "./room-messages.ts";
import { askForTurns, tryRecover, unreported } from "./room-recovery.ts";
import { afterSetupChange } from "./room-setup.ts";
import type { RoomState } from "./room-state.ts";
import { missingPlayers, seatOf, withSeat } from "./room-state.ts";
import type { Step } from "./room-transition.ts";
import {
  notSeated,
  refuseUnlessHost,
  refuseUnlessPlaying,
  unchanged,
  withEffects,
} from "./room-transition.ts";

/**
 * Missing players (SPEC §5): a human whose connection drops pauses the clock; the host resumes once
 * everyone is back, or hands the missing seats to AI and plays on.
 */

/**
 * A seat changed during the match: everyone gets the room frame; a paused clock says who it still
 * waits for, and a restore that has everything it waited for resumes.
 */
export function afterPresenceChange(state: RoomState, ctx: ActorContext): Step {
  const seats: Step = { state, effects: pushRoom(state) };
  if (state.clock.status !== "paused") return seats;
  const recovered = tryRecover(state, ctx);
  if (recovered) return andThen(seats, () => recovered);
  return { state, effects: [...seats.effects, ...pushToHumans(state, pausedFrame(state))] };
}

/** The gateway reports a seated player's connection. A drop while the clock runs pauses it. */
export function connection(state: RoomState, message: RoomMessageOf<"connection">, ctx: ActorContext): Step {
  const { player, connected } = message;
  const seat = seatOf(state, player);
  if (seat === undefined) return notSeated(state, player);
  if (seat.connected === connected) {
    // A reconnect the room already knew of: the player's new session still needs the room — and, while
    // a failover waits for this seat's turns, the question again (an answer sent before the session knew
    // its room was refused, so the seat may never have reported).
    return connected
      ? { state, effects: [...pushTo([player], roomFrame(state)), ...askForTurns(state, [player]), reply()] }
      : unchanged(state);
  }
  const next = withSeat(state, seat.seat, { connected });
  if (next.phase === "setup") return withEffects(afterSetupChange(next, ctx), reply());
  if (!connected && next.clock.status === "running") {
    return withEffects(
      andThen(pauseClock(next, "missing"), (s) => ({ state: s, effects: pushRoom(s) })),
      reply(),
    );
  }
  // Back after a failover: the room still waits for the turns this player holds.
  return withEffects(afterPresenceChange(next, ctx), ...askForTurns(next, [player]), reply());
}

/** The missing players' seats (the host's excepted) handed to AI. */
function handMissingToAi(state: RoomState): RoomState {
  let next = state;
  for (const player of missingPlayers(state)) {
    const seat = seatOf(next, player);
    if (seat !== undefined && player !== state.host) next = handToAi(next, seat.seat);
  }
  return next;
}

/**
 * The host resumes a paused clock. Everyone must be back, unless `handToAi` gives the missing players'
 * seats to AI first; after a failover every human must also have reported its turns. Resuming a clock
 * that runs changes nothing.
 */
export function resume(state: RoomState, message: RoomMessageOf<"resume">, ctx: ActorContext): Step {
  const refused = refuseUnlessHost(state, message.player) ?? refuseUnlessPlaying(state);
  if (refused) return refused;
  if (state.clock.status !== "paused") return unchanged(state);
  const next = message.handToAi === true ? handMissingToAi(state) : state;
  const missing = missingPlayers(next);
  if (missing.length > 0) {
    return refuse(state, "INVALID", `waiting for ${missing.join(", ")}; resume with handToAi to play on`);
  }
  const go = state.clock.reason === "missing" ? resumeClock(next, ctx) : tryRecover(next, ctx);
  if (go === undefined) {
    const waiting = next.recovery === null ? [] : unreported(next, next.recovery);
    return refuse(state, "INVALID", `waiting for turn reports from ${waiting.join(", ")}`);
  }
  const seats: Effect[] = next === state ? [] : pushRoom(next);
  return { state: go.state, effects: [...seats, ...go.effects, reply()] };
}
