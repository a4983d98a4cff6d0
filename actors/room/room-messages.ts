import { kindMessageParser, type Restored, type TimerFired } from "../runtime/index.ts";
import { z } from "zod";
import {
  listingCheckSchema,
  modeSchema,
  playerIdSchema,
  playerRefSchema,
  transferTokenSchema,
} from "../common/index.ts";
import {
  chatChannelSchema,
  checksumValueSchema,
  commandDataSchema,
  mapSchema,
  roomOptionsSchema,
  sideSchema,
  teamSchema,
  turnSchema,
} from "./room-fields.ts";
import { roomLimits } from "./room-limits.ts";
import { queuedCommandSchema } from "./room-state.ts";

/** What a relay room accepts: its lobby's orders, its players' requests and the gateway's reports. */

const player = playerIdSchema;

/** The largest result the studio's backend may end a room with, as JSON. */
export const maxRoomResultBytes = 16_384;

/**
 * A match result as the studio's backend gives it: a JSON object, carried in the `room.ended` event and
 * not kept in the room's state.
 */
export const roomResultSchema = z
  .record(z.string(), z.json())
  .refine((value) => JSON.stringify(value).length <= maxRoomResultBytes, {
    message: `a result is at most ${maxRoomResultBytes} bytes of JSON`,
  });

/** A turn as a player received it (a `turn` frame without its stamp; `ai` absent when empty). */
export const heldTurnInputSchema = z.strictObject({
  turn: turnSchema.min(1),
  commands: z.array(queuedCommandSchema).max(roomLimits.maxCommandsPerTurn),
  ai: z.array(sideSchema).max(roomLimits.maxCommandsPerTurn).default([]),
});

/** Every message a room handles. `player` is always the sender, as the gateway authenticated it. */
export const roomMessageSchema = z.discriminatedUnion("type", [
  // From the lobby: the host returned or the lobby closed; the room ends at once.
  z.strictObject({ type: z.literal("end") }),
  // From the studio's backend (docs/server-api.md): the match is over, with the result it reports.
  z.strictObject({ type: z.literal("serverEnd"), result: roomResultSchema.nullable() }),
  // From a gateway checking that a matchmaking queue's room still runs (SPEC §4 reconnect): read-only.
  z.strictObject({ type: z.literal("status") }),
  // From the lobby or the player: it leaves; before the start its seat is freed, after it goes to AI.
  z.strictObject({ type: z.literal("leaveSeat"), player }),
  // From a seated player: the match is over.
  z.strictObject({ type: z.literal("finish"), player }),
  // From the gateway, for a seated player: the room's document reference, to stream it from the BlobStore.
  z.strictObject({ type: z.literal("blob"), player }),
  // Before the start (a room created directly): take the next free seat, or the one named.
  // A player an activity lobby sent here arrives with its transfer token.
  z.strictObject({
    type: z.literal("join"),
    player: playerRefSchema,
    side: sideSchema.optional(),
    token: transferTokenSchema.optional(),
  }),
  z.strictObject({ type: z.literal("setAi"), player, side: sideSchema, ai: z.boolean() }),
  z.strictObject({ type: z.literal("ready"), player, ready: z.boolean() }),
  z.strictObject({
    type: z.literal("setup"),
    player,
    mode: modeSchema.optional(),
    map: mapSchema.nullable().optional(),
    /** The team of every seat, in seat order. */
    teams: z.array(teamSchema).optional(),
    /** Replaces the options as a whole. */
    options: roomOptionsSchema.optional(),
  }),
  // The match.
  z.strictObject({ type: z.literal("command"), player, data: commandDataSchema }),
  z.strictObject({
    type: z.literal("checksum"),
    player,
    turn: turnSchema.min(1),
    value: checksumValueSchema,
  }),
  z.strictObject({
    type: z.literal("chat"),
    player,
    channel: chatChannelSchema,
    text: z.string().min(1).max(roomLimits.maxChatLength),
  }),
  // The host: play on after a pause (handing the missing players' seats to AI if asked), or end it.
  z.strictObject({ type: z.literal("resume"), player, handToAi: z.boolean().optional() }),
  z.strictObject({ type: z.literal("abort"), player }),
  // From the gateway: a seated player's connection came or went.
  z.strictObject({ type: z.literal("connection"), player, connected: z.boolean() }),
  // A player that came back asks for the turns after the last one it holds (the room's window).
  z.strictObject({ type: z.literal("turns"), player, after: turnSchema }),
  // After a failover, answering `turnsWanted`: the turns after `after` the player holds, in batches.
  z.strictObject({
    type: z.literal("heldTurns"),
    player,
    after: turnSchema,
    turns: z.array(heldTurnInputSchema).max(roomLimits.maxHeldTurnsPerBatch),
    /** The last batch: the seat holds no later turn. */
    done: z.boolean(),
  }),
  // From the gateway, after a failover: the last turn a seat holds and a digest of turns 1..lastTurn.
  z.strictObject({
    type: z.literal("turnsReport"),
    player,
    lastTurn: turnSchema,
    digest: z.string().min(1).max(roomLimits.maxDigestLength),
  }),
  // From the directory: say the browse-list line again (the room kind answers it, room-listing.ts).
  listingCheckSchema,
]);

/** A room message. */
export type RoomMessage = z.output<typeof roomMessageSchema>;

/** The room message of one type. */
export type RoomMessageOf<T extends RoomMessage["type"]> = Extract<RoomMessage, { type: T }>;

const parseIncoming = kindMessageParser(roomMessageSchema);

/** Validates a message for a room; undefined for anything else. */
export function parseRoomMessage(message: unknown): RoomMessage | TimerFired | Restored | undefined {
  return parseIncoming(message);
}
