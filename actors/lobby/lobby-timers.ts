import type { Effect } from "../runtime/index.ts";

/** The lobby's timer names, in one place so arming, cancelling and dispatch agree. */

/** Armed when the room reports its end; when it fires everyone is back in the lobby. */
export const returnTimerName = "return";

const gracePrefix = "grace:";

/** The grace timer of a disconnected member: when it fires the member leaves. */
export function graceTimerName(player: string): string {
  return `${gracePrefix}${player}`;
}

/** The player a grace timer belongs to, or undefined for any other timer. */
export function graceTimerPlayer(name: string): string | undefined {
  return name.startsWith(gracePrefix) ? name.slice(gracePrefix.length) : undefined;
}

/** Arms (or re-arms, fresh) a member's grace. `grace` timers do not run while the lobby is being restored. */
export function armGrace(player: string, now: number, seconds: number): Effect {
  return { type: "timer", name: graceTimerName(player), at: now + seconds * 1000, kind: "grace" };
}

/** Cancels a member's grace: it came back, or it left for another reason. */
export function cancelGrace(player: string): Effect {
  return { type: "cancelTimer", name: graceTimerName(player) };
}
