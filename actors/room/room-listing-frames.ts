import { z } from "zod";
import { codeSchema, modeSchema } from "../common/fields.ts";
import { mapSchema } from "./room-fields.ts";
import { roomLimits } from "./room-limits.ts";

// Schemas only, on leaf files: the SDK's browse answer is typed from them, and its package must not reach
// the room's machine through them.

/** What a public room tells the directory whenever a browse-list field changes. */
export const roomListingSchema = z.strictObject({
  type: z.literal("roomListing"),
  code: codeSchema,
  mode: modeSchema,
  map: mapSchema.nullable(),
  /** Every seat of the room. */
  seats: z.number().int().min(1).max(roomLimits.maxDirectSeats),
  /** Seats nobody holds and the host did not give to AI: the ones a `joinRoom` can take. */
  freeSeats: z.number().int().min(0).max(roomLimits.maxDirectSeats),
  /** Seated humans. */
  players: z.number().int().min(0).max(roomLimits.maxDirectSeats),
});

/** A room's line in the browse list. */
export type RoomListing = z.output<typeof roomListingSchema>;

/** What a public room tells the directory when it leaves the list (started, ended, closed). */
export const roomUnlistSchema = z.strictObject({ type: z.literal("roomUnlist"), code: codeSchema });
