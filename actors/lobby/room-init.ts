import { z } from "zod";
import { codeSchema, modeSchema, playerIdSchema, seatSchema } from "./fields.ts";

/** The contract between a lobby and the room it spawns. */

/** The argument of the room's spawn: everything the room needs to seat the lobby. */
export const roomInitSchema = z.strictObject({
  code: codeSchema,
  /** The key of the lobby that started the room, where `roomEnded` goes. */
  lobby: z.string().min(1),
  mode: modeSchema,
  /** The lobby's host when the room started: the room's host. */
  host: playerIdSchema,
  seats: z.array(seatSchema).min(1),
});

/** A room's creation argument. */
export type RoomInit = z.output<typeof roomInitSchema>;
