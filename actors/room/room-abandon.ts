import type { ActorContext, Effect } from "../runtime/index.ts";
import { closeRoom } from "./room-ending.ts";
import { roomLimits } from "./room-limits.ts";
import { humanSeats, type RoomState } from "./room-state.ts";
import type { Step } from "./room-transition.ts";

/**
 * A room created directly has no lobby to clean up after it: when none of its humans is connected for
 * `abandonAfterMs`, it closes, so abandoned rooms do not hold the node's room capacity or the store.
 * (A lobby's room ends with its lobby, whose members' graces decide.)
 */

/** The timer that closes an abandoned room. */
export const abandonTimerName = "abandon";

function nobodyConnected(state: RoomState): boolean {
  const humans = humanSeats(state);
  return humans.length > 0 && humans.every((s) => !s.connected);
}

/** After any transition: arm the abandon timer when the last human dropped, cancel it when one is back. */
export function watchAbandon(step: Step, ctx: ActorContext): Step {
  const state = step.state;
  if (state.lobby !== null || state.phase === "ended" || step.effects.some((e) => e.type === "stop"))
    return step;
  const nobody = nobodyConnected(state);
  let change: { abandonAt: number | null; effect: Effect } | undefined;
  if (nobody && state.abandonAt === null) {
    const at = ctx.now + roomLimits.abandonAfterMs;
    change = { abandonAt: at, effect: { type: "timer", name: abandonTimerName, at, kind: "grace" } };
  } else if (!nobody && state.abandonAt !== null) {
    change = { abandonAt: null, effect: { type: "cancelTimer", name: abandonTimerName } };
  }
  if (!change) return step;
  return {
    ...step,
    state: { ...state, abandonAt: change.abandonAt },
    effects: [...step.effects, change.effect],
  };
}

/** The abandon timer fired: close the room if still nobody is connected. */
export function abandonFired(state: RoomState): Step {
  if (state.abandonAt === null) return { state, effects: [] };
  if (nobodyConnected(state)) return closeRoom(state);
  return { state: { ...state, abandonAt: null }, effects: [] };
}
