import type { Effect } from "../runtime/index.ts";

/** The activity lobby's timer names besides the countdown's, in one place so arming and dispatch agree. */

/** Armed at the start: when it fires, the lobby stops waiting for its players to load into the room. */
export const transferTimerName = "transfer";

const gracePrefix = "grace:";

/** The grace timer of a player whose session dropped: when it fires the player leaves. */
export function graceTimerName(player: string): string {
  return `${gracePrefix}${player}`;
}

/** The player a grace timer belongs to, or undefined for any other timer. */
export function graceTimerPlayer(name: string): string | undefined {
  return name.startsWith(gracePrefix) ? name.slice(gracePrefix.length) : undefined;
}

/** Arms (or re-arms, fresh) a player's grace; `grace` timers do not run while the lobby is being restored. */
export function armGrace(player: string, now: number, seconds: number): Effect {
  return { type: "timer", name: graceTimerName(player), at: now + seconds * 1000, kind: "grace" };
}

/** Cancels a player's grace: it came back, or it left for another reason. */
export function cancelGrace(player: string): Effect {
  return { type: "cancelTimer", name: graceTimerName(player) };
}
