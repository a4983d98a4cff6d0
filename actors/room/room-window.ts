import { roomLimits } from "./room-limits.ts";
import type { RoomState, SentTurn } from "./room-state.ts";

/**
 * The window of recent turns a room keeps in memory, so a player whose socket dropped gets every turn it
 * missed. It is bounded by turns and by bytes of command data (a room relaying megabytes keeps only the
 * latest); only its last `recentTurnsKept` turns go into the snapshot.
 */

/** The bytes a turn takes in the window: its command data and a little for each command. */
export function turnBytes(turn: SentTurn): number {
  let bytes = 16;
  for (const c of turn.commands)
    bytes += 16 + (typeof c.data === "string" ? c.data.length : c.data.byteLength);
  return bytes;
}

/** The window with `added` appended (in turn order), trimmed from the oldest end to its bounds. */
export function keepWindow(turns: readonly SentTurn[], ...added: SentTurn[]): SentTurn[] {
  const all = [...turns, ...added].slice(-roomLimits.catchUpTurnsKept);
  let bytes = 0;
  let first = all.length;
  // The newest turn always stays, whatever its size: it is the one the next write must carry.
  for (const turn of [...all].reverse()) {
    const size = turnBytes(turn);
    if (first < all.length && bytes + size > roomLimits.catchUpBytesKept) break;
    bytes += size;
    first--;
  }
  return all.slice(first);
}

/** What of a room's state is written: the window shrinks to the last `recentTurnsKept` turns. */
export function storedRoomState(state: RoomState): RoomState {
  if (state.recentTurns.length <= roomLimits.recentTurnsKept) return state;
  return { ...state, recentTurns: state.recentTurns.slice(-roomLimits.recentTurnsKept) };
}

/**
 * The turns after `after` the window holds, in order, and the span before them that it no longer holds
 * (null when nothing is missing). Only the unbroken run of turns ending at the last one sent counts.
 */
export function turnsAfter(
  state: RoomState,
  after: number,
): { turns: SentTurn[]; gone: { from: number; to: number } | null } {
  const window = state.recentTurns;
  let start = window.length;
  let expected = state.lastTurn;
  while (start > 0 && window[start - 1]?.turn === expected && expected > after) {
    start--;
    expected--;
  }
  const turns = window.slice(start);
  const first = turns[0]?.turn ?? state.lastTurn + 1;
  const gone = first > after + 1 ? { from: after + 1, to: first - 1 } : null;
  return { turns, gone };
}
