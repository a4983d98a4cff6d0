/** The activity lobby's timer names besides the countdown's, in one place so arming and dispatch agree. */

/** Armed at the start: when it fires, the lobby stops waiting for its players to load into the room. */
export const transferTimerName = "transfer";

export { armGrace, cancelGrace, graceTimerName, graceTimerPlayer } from "../runtime/index.ts";
