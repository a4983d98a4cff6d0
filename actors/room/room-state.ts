import { z } from "zod";
import { playerIdSchema, roomInitSchema } from "../lobby/index.ts";

/** The minimal room's snapshot: what the lobby seated, and who stepped out. */

/** The version of the room state's shape. */
export const roomSchemaVersion = 1;

/** The whole room state: the lobby's spawn argument plus how the match stands. */
export const roomStateSchema = roomInitSchema.extend({
  /** The match is over (finish reported or ended by the lobby). */
  ended: z.boolean(),
  /** Seated players who stepped out (returned to the lobby or left it); the room plays on without them. */
  left: z.array(playerIdSchema),
});

/** A room's state. */
export type RoomState = z.output<typeof roomStateSchema>;

/** Reads a room snapshot of a known schema version. */
export function upgradeRoomState(state: unknown, version: number): RoomState {
  if (version !== roomSchemaVersion) throw new RangeError(`unknown room schema version ${version}`);
  return roomStateSchema.parse(state);
}

/** The human players seated in the room, in seat order. */
export function seatedPlayers(state: Pick<RoomState, "seats">): string[] {
  return state.seats.flatMap((s) => (s.player === null ? [] : [s.player]));
}
