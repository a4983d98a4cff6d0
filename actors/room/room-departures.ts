import type { ActorContext } from "../runtime/index.ts";
import { closeRoom } from "./room-ending.ts";
import { handToAi } from "./room-handover.ts";
import type { RoomMessageOf } from "./room-messages.ts";
import { afterPresenceChange } from "./room-presence.ts";
import { afterSetupChange } from "./room-setup.ts";
import type { RoomState } from "./room-state.ts";
import { humanSeats, seatOf, withSeat } from "./room-state.ts";
import type { Step } from "./room-transition.ts";
import { unchanged, withEffects } from "./room-transition.ts";

/**
 * A player leaves the room (its lobby says so, or the player itself). Before the start its seat is free
 * again, and the host leaving closes the room; after the start its seat goes to AI, and the last human
 * leaving ends the match. A player without a seat changes nothing: the lobby's notice may be stale.
 */
export function leaveSeat(state: RoomState, message: RoomMessageOf<"leaveSeat">, ctx: ActorContext): Step {
  const seat = seatOf(state, message.player);
  if (seat === undefined) return unchanged(state);
  if (state.phase === "setup") {
    const freed = withSeat(state, seat.seat, { player: null, name: null, ready: false, connected: false });
    if (message.player === state.host) return closeRoom(freed);
    return withEffects(afterSetupChange(freed, ctx), { type: "reply" });
  }
  const next = handToAi(state, seat.seat);
  if (humanSeats(next).length === 0) return closeRoom(next);
  return withEffects(afterPresenceChange(next, ctx), { type: "reply" });
}
