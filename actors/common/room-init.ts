import { z } from "zod";
import { codeSchema, modeSchema, playerIdSchema, seatSchema } from "./fields.ts";

/** The contract between a lobby (private, activity or matched) and the room it spawns. */

/** A transfer token: what an activity lobby hands each player it sends to a room. */
export const transferTokenSchema = z.string().regex(/^[A-Za-z0-9]{16,64}$/);

/**
 * A stored blob (a room's document, docs/rooms.md "Large blobs"): the BlobStore's id, size and SHA-256.
 * Rooms and lobbies carry only this, never the bytes.
 */
export const blobRefSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  size: z.number().int().min(1),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
});

/** The argument of the room's spawn: everything the room needs to seat the lobby. */
export const roomInitSchema = z.strictObject({
  code: codeSchema,
  /** The key of the lobby that started the room, where `roomEnded` goes. */
  lobby: z.string().min(1),
  mode: modeSchema,
  /** The lobby's host when the room started: the room's host. */
  host: playerIdSchema,
  seats: z.array(seatSchema).min(1),
  /**
   * Per-player transfer tokens (activity lobbies, docs/activity.md): a player listed here takes its seat
   * only by joining with its token. Private lobbies seat their members without one.
   */
  tokens: z.record(playerIdSchema, transferTokenSchema).optional(),
  /** The document the host's start carried, if any. */
  blob: blobRefSchema.optional(),
});

/** A room's creation argument. */
export type RoomInit = z.output<typeof roomInitSchema>;
