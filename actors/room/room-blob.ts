import type { RoomState } from "./room-state.ts";
import type { Step } from "./room-transition.ts";
import { refuseUnseated } from "./room-transition.ts";
import { refuse, reply } from "../runtime/index.ts";

/**
 * A room's document (docs/rooms.md "Large blobs"): the room keeps only its BlobStore reference, hands it
 * to a seated player's gateway to stream, and releases the blob when it stops.
 */

/** Answers a seated player the room's blob reference `{ id, size, digest }`; NOT_FOUND when it has none. */
export function blobOf(state: RoomState, player: string): Step {
  const unseated = refuseUnseated(state, player);
  if (unseated) return unseated;
  if (state.blob === null) return refuse(state, "NOT_FOUND", `room ${state.code} has no document`);
  return { state, effects: [reply(state.blob)] };
}

/** Whatever ends a room (finish, abort, its lobby, abandonment) stops it: its blob goes with it. */
export function releaseBlobOnStop(step: Step): Step {
  const blob = step.state.blob;
  if (blob === null || !step.effects.some((e) => e.type === "stop")) return step;
  return { ...step, effects: [...step.effects, { type: "releaseBlob", id: blob.id }] };
}
