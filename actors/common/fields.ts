import { z } from "zod";

/** The field schemas every kind's state and messages are built from. */

/** A player id as the gateway authenticated it. */
export const playerIdSchema = z.string().min(1).max(128);

/** A display name; bounded so one member cannot bloat every state frame. */
export const playerNameSchema = z.string().min(1).max(64);

/** A game mode name (a key of `teamSizes`). */
export const modeSchema = z.string().min(1).max(64);

/** A lobby or room code, already normalised (upper-case letters and digits). */
export const codeSchema = z.string().regex(/^[A-Z0-9]{1,16}$/);

/** A seat of a room: its id (a member id, or a bot id from `botSeatIdBase`), its team and its player. */
export const seatSchema = z.strictObject({
  seat: z.number().int().min(0),
  team: z.number().int().min(0),
  /** null for a bot. */
  player: playerIdSchema.nullable(),
});

/** One seat of a room. */
export type Seat = z.output<typeof seatSchema>;

/** A player as the gateway knows it. */
export const playerRefSchema = z.strictObject({ id: playerIdSchema, name: playerNameSchema });

/** A player's id and display name. */
export type PlayerRef = z.output<typeof playerRefSchema>;
