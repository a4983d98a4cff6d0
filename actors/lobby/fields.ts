import { z } from "zod";

/** The field schemas shared by lobby state, lobby messages and the kinds that talk to lobbies. */

/** A player id as the gateway authenticated it. */
export const playerIdSchema = z.string().min(1).max(128);

/** A display name; bounded so one member cannot bloat every state frame. */
export const playerNameSchema = z.string().min(1).max(64);

/** A game mode name (a key of `teamSizes`). */
export const modeSchema = z.string().min(1).max(64);

/** A lobby or room code, already normalised (upper-case letters and digits). */
export const codeSchema = z.string().regex(/^[A-Z0-9]{1,16}$/);

/** A value a game may put in public-lobby metadata. */
export const metadataValueSchema = z.union([z.string().max(256), z.number(), z.boolean()]);

/** What a public lobby shows in browse lists: mode and map, plus whatever small facts the game adds. */
export const metadataSchema = z
  .object({ mode: z.string().max(64).optional(), map: z.string().max(256).optional() })
  .catchall(metadataValueSchema)
  .refine((value) => Object.keys(value).length <= 32, "at most 32 metadata fields")
  .refine(
    (value) => Object.keys(value).every((name) => name.length <= 32),
    "metadata field names are at most 32 characters",
  );

/** Public-lobby metadata. */
export type LobbyMetadata = z.output<typeof metadataSchema>;

/** A seat of a room: its id (a member id, or a bot id from `botSeatIdBase`), its team and its player. */
export const seatSchema = z.strictObject({
  seat: z.number().int().min(0),
  team: z.number().int().min(0),
  /** null for a bot. */
  player: playerIdSchema.nullable(),
});

/** One seat of a room. */
export type Seat = z.output<typeof seatSchema>;
