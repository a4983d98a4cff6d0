import type { ActorContext, Effect } from "../runtime/index.ts";
import { pausedFrame, pushRoom, pushToHumans, turnFrame } from "./room-frames.ts";
import type { RoomState, SentTurn } from "./room-state.ts";
import type { Step } from "./room-transition.ts";
import { keepWindow } from "./room-window.ts";

/**
 * The turn clock (SPEC §5): every `turnMs` turn N goes out with every command received for it, in
 * arrival order. It is one `game` timer, re-armed by each turn; pausing cancels it.
 */

/** The name of the room's one timer. */
export const turnTimerName = "turn";

function armTurn(at: number): Effect {
  return { type: "timer", name: turnTimerName, at, kind: "game" };
}

/** The match starts: the clock runs and turn 1 goes out one turn length from now. */
export function startMatch(state: RoomState, ctx: ActorContext): Step {
  const nextAt = ctx.now + state.turnMs;
  const next: RoomState = { ...state, phase: "playing", clock: { status: "running", nextAt } };
  return { state: next, effects: [...pushRoom(next), armTurn(nextAt)] };
}

/**
 * The turn timer fired: turn lastTurn + 1 goes out and the next one is armed a turn length after this
 * deadline, so the cadence does not drift. A timer that fires more than a turn late re-bases the clock
 * on now instead of sending a burst: turns stay consecutive, only the time between two of them grows.
 * Volatile unless the room persists every turn (FLEET-PROTOCOL, Rooms).
 */
export function sendTurn(state: RoomState, ctx: ActorContext): Step {
  if (state.clock.status !== "running") return { state, effects: [] };
  const sent: SentTurn = { turn: state.lastTurn + 1, commands: state.queue, ai: state.handedToAi };
  const due = state.clock.nextAt + state.turnMs;
  const nextAt = due > ctx.now ? due : ctx.now + state.turnMs;
  const next: RoomState = {
    ...state,
    lastTurn: sent.turn,
    queue: [],
    handedToAi: [],
    recentTurns: keepWindow(state.recentTurns, sent),
    clock: { status: "running", nextAt },
  };
  return {
    state: next,
    effects: [...pushToHumans(next, turnFrame(sent)), armTurn(nextAt)],
    volatile: state.turnDurability === "volatile",
  };
}

/** Stops the clock for `reason` and tells every human why and who is missing. Paused already: a fresh notice. */
export function pauseClock(state: RoomState, reason: "missing" | "restored"): Step {
  const next: RoomState = { ...state, clock: { status: "paused", reason } };
  const cancel: Effect[] =
    state.clock.status === "running" ? [{ type: "cancelTimer", name: turnTimerName }] : [];
  return { state: next, effects: [...cancel, ...pushToHumans(next, pausedFrame(next))] };
}

/** The clock runs again: the next turn is lastTurn + 1, one turn length from now. */
export function resumeClock(state: RoomState, ctx: ActorContext): Step {
  const nextAt = ctx.now + state.turnMs;
  const next: RoomState = { ...state, clock: { status: "running", nextAt } };
  return {
    state: next,
    effects: [...pushToHumans(next, { type: "resumed", turn: next.lastTurn + 1 }), armTurn(nextAt)],
  };
}
