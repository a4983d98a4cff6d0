import { z } from "zod";
import { roomLimits } from "./room-limits.ts";

/** The field schemas shared by the room's init, messages, state and frames. */

/**
 * A side: the id of a seat. A room created directly numbers its seats 0, 1, 2, 3 (0 is the host's); a
 * room started by a lobby keeps the lobby's seat ids (member ids, bots from `botSeatIdBase`).
 */
export const sideSchema = z.number().int().min(0).max(1_000_000);

/** A team number. */
export const teamSchema = z.number().int().min(0).max(1_000);

/** A turn number; the first turn of a match is 1. */
export const turnSchema = z.number().int().min(0);

/** A map name, as the game knows it. */
export const mapSchema = z.string().min(1).max(256);

/** The host's game options: small named values the room relays and never reads. */
export const roomOptionsSchema = z
  .record(z.string().min(1).max(64), z.union([z.string().max(256), z.number(), z.boolean()]))
  .refine((value) => Object.keys(value).length <= roomLimits.maxOptions, "too many options");

/** A room's game options. */
export type RoomGameOptions = z.output<typeof roomOptionsSchema>;

/** A command's payload: opaque to the room, a bounded string or byte array. */
export const commandDataSchema = z.union([
  z.string().max(roomLimits.maxCommandSize),
  z
    .instanceof(Uint8Array)
    .refine((bytes) => bytes.byteLength <= roomLimits.maxCommandSize, "command data too large"),
]);

/** A command's payload. */
export type CommandData = z.output<typeof commandDataSchema>;

/** A client's checksum of its game state: compared for equality only. */
export const checksumValueSchema = z.union([
  z.string().min(1).max(roomLimits.maxChecksumLength),
  z.number().int(),
]);

/** How turns are made durable (FLEET-PROTOCOL, Rooms). */
export const turnDurabilitySchema = z.enum(["volatile", "persisted"]);

/** `volatile`: a snapshot every few seconds, later turns collected from the seats; `persisted`: every turn written. */
export type TurnDurability = z.output<typeof turnDurabilitySchema>;

/** The turn length in milliseconds. */
export const turnMsSchema = z.number().int().min(roomLimits.minTurnMs).max(roomLimits.maxTurnMs);

/** The channels of the room chat. */
export const chatChannelSchema = z.enum(["all", "team"]);
