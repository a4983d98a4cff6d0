import type { Effect } from "./types.ts";

/**
 * A player's grace timer, shared by every kind that keeps a seat for a player whose session dropped
 * (lobbies, activity lobbies): `grace:<player>`, a `grace` timer, so it does not run while the actor is
 * being restored.
 */

const gracePrefix = "grace:";

/** The grace timer of a player whose session dropped: when it fires the player leaves. */
export function graceTimerName(player: string): string {
  return `${gracePrefix}${player}`;
}

/** The player a grace timer belongs to, or undefined for any other timer. */
export function graceTimerPlayer(name: string): string | undefined {
  return name.startsWith(gracePrefix) ? name.slice(gracePrefix.length) : undefined;
}

/** Arms (or re-arms, fresh) a player's grace. */
export function armGrace(player: string, now: number, seconds: number): Effect {
  return { type: "timer", name: graceTimerName(player), at: now + seconds * 1000, kind: "grace" };
}

/** Cancels a player's grace: it came back, or it left for another reason. */
export function cancelGrace(player: string): Effect {
  return { type: "cancelTimer", name: graceTimerName(player) };
}
