/** The lobby's timer names, in one place so arming, cancelling and dispatch agree. */

/** Armed when the room reports its end; when it fires everyone is back in the lobby. */
export const returnTimerName = "return";

export { armGrace, cancelGrace, graceTimerName, graceTimerPlayer } from "../runtime/index.ts";
