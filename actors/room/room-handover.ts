import type { RoomState } from "./room-state.ts";
import { humanSeats, withSeat } from "./room-state.ts";

/** Handing a human seat to AI once the match has started (SPEC §5: a player who leaves is replaced by AI). */

/** The human who takes the host role: the first connected one in seat order, else the first at all. */
function nextHost(state: RoomState): string | null {
  const humans = humanSeats(state);
  return (humans.find((s) => s.connected) ?? humans[0])?.player ?? null;
}

/**
 * The seat of `side` is played by AI from the next turn on, which announces it (`ai` in the turn frame),
 * so every client switches at the same turn. A host's role moves to the next human; with none left it
 * stays, and the caller ends the match.
 */
export function handToAi(state: RoomState, side: number): RoomState {
  const seat = state.seats.find((s) => s.seat === side);
  if (seat?.player == null) return state;
  const seated = withSeat(state, side, {
    player: null,
    name: null,
    ai: true,
    ready: false,
    connected: false,
  });
  const next: RoomState = { ...seated, handedToAi: [...seated.handedToAi, side] };
  return seat.player === state.host ? { ...next, host: nextHost(next) ?? state.host } : next;
}
