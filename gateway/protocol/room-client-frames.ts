import { z } from "zod";
import { answeredThroughSchema, requestIdSchema } from "./request-id.ts";
import { modeSchema } from "../../actors/shared/index.ts";
import {
  chatChannelSchema,
  checksumValueSchema,
  commandDataSchema,
  heldTurnInputSchema,
  mapSchema,
  roomLimits,
  roomOptionsSchema,
  sideSchema,
  teamSchema,
  turnDurabilitySchema,
  turnMsSchema,
  turnSchema,
} from "../../actors/room/index.ts";
import { blobIdSchema } from "./blob-frames.ts";

/**
 * The relay room's requests (docs/rooms.md, SPEC §5). The fields are the room's own schemas, so the
 * wire bounds are the room's bounds. Each maps to one room message, with the session's player as sender.
 */

const requestId = requestIdSchema;

/** Creates a room directly: the creator is side 0 and host; the node draws the six-letter code. */
export const createRoomFrame = z.strictObject({
  type: z.literal("createRoom"),
  id: requestId,
  ack: answeredThroughSchema,
  seats: z.number().int().min(1).max(roomLimits.maxDirectSeats),
  mode: modeSchema,
  map: mapSchema.optional(),
  options: roomOptionsSchema.optional(),
  /** Listed in the browse list (`browse`) while in setup; a private room (the default) never is. */
  public: z.boolean().optional(),
  turnMs: turnMsSchema.optional(),
  turnDurability: turnDurabilitySchema.optional(),
  /** A finished upload's id (`finishBlob`): the room's document, streamed to every seat at the start. */
  blob: blobIdSchema.optional(),
});

/** Takes the next free seat of a room created directly (or the side named), before its start. */
export const joinRoomFrame = z.strictObject({
  type: z.literal("joinRoom"),
  id: requestId,
  ack: answeredThroughSchema,
  code: z.string().max(32).describe("room code; trimmed and upper-cased by the node"),
  side: sideSchema.optional(),
  token: z
    .string()
    .regex(/^[A-Za-z0-9]{16,64}$/)
    .optional()
    .describe("the activityTransfer's token: an activity room seats you only with it"),
});

/** Ready (or not) in the room; the match starts when every human seat is ready and connected. */
export const roomReadyFrame = z.strictObject({
  type: z.literal("roomReady"),
  id: requestId,
  ack: answeredThroughSchema,
  ready: z.boolean(),
});

/** The host marks a free seat as AI (or clears it) before the start. */
export const setAiFrame = z.strictObject({
  type: z.literal("setAi"),
  id: requestId,
  ack: answeredThroughSchema,
  side: sideSchema,
  ai: z.boolean(),
});

/** The host changes mode, map (null clears it), teams (one per seat) or options (replaced whole). */
export const roomSetupFrame = z.strictObject({
  type: z.literal("roomSetup"),
  id: requestId,
  ack: answeredThroughSchema,
  mode: modeSchema.optional(),
  map: mapSchema.nullable().optional(),
  teams: z.array(teamSchema).max(roomLimits.maxDirectSeats).optional(),
  options: roomOptionsSchema.optional(),
});

/** A command for the next turn: a string, or bytes on a msgpack connection. */
export const commandFrame = z.strictObject({
  type: z.literal("command"),
  id: requestId,
  ack: answeredThroughSchema,
  data: commandDataSchema,
});

/** The player's checksum of its game state after a turn it received. */
export const checksumRequestFrame = z.strictObject({
  type: z.literal("checksum"),
  id: requestId,
  ack: answeredThroughSchema,
  turn: turnSchema.min(1),
  value: checksumValueSchema,
});

/** A chat line to everyone in the room or to the sender's team. */
export const chatRequestFrame = z.strictObject({
  type: z.literal("chat"),
  id: requestId,
  ack: answeredThroughSchema,
  channel: chatChannelSchema,
  text: z.string().min(1).max(roomLimits.maxChatLength),
});

/** The host resumes a paused clock; `handToAi` gives the missing players' seats to AI first. */
export const resumeRoomFrame = z.strictObject({
  type: z.literal("resumeRoom"),
  id: requestId,
  ack: answeredThroughSchema,
  handToAi: z.boolean().optional(),
});

/** The host ends the match (or, before the start, closes the room). */
export const abortRoomFrame = z.strictObject({
  type: z.literal("abortRoom"),
  id: requestId,
  ack: answeredThroughSchema,
});

/** Leaves a room created directly: before the start the seat is freed, after it the seat goes to AI. */
export const leaveRoomFrame = z.strictObject({
  type: z.literal("leaveRoom"),
  id: requestId,
  ack: answeredThroughSchema,
});

/**
 * A player that came back asks for the turns after the last one it holds: they come as `turn` frames,
 * in order, after a `turnsGone` when the room no longer holds the oldest; answers the last turn sent.
 */
export const roomTurnsFrame = z.strictObject({
  type: z.literal("roomTurns"),
  id: requestId,
  ack: answeredThroughSchema,
  after: turnSchema,
});

/**
 * After a failover, the answer to `turnsWanted { after }`: the turns the player holds after `after`, in
 * order, in batches that fit the frame limit (each batch continues where the last ended); `done` on the
 * last. The SDK sends it by itself.
 */
export const heldTurnsFrame = z.strictObject({
  type: z.literal("heldTurns"),
  id: requestId,
  ack: answeredThroughSchema,
  after: turnSchema,
  turns: z.array(heldTurnInputSchema).max(roomLimits.maxHeldTurnsPerBatch),
  done: z.boolean(),
});

/** The client's room requests. */
export const roomClientFrames = [
  createRoomFrame,
  joinRoomFrame,
  roomReadyFrame,
  setAiFrame,
  roomSetupFrame,
  commandFrame,
  checksumRequestFrame,
  chatRequestFrame,
  resumeRoomFrame,
  abortRoomFrame,
  leaveRoomFrame,
  roomTurnsFrame,
  heldTurnsFrame,
] as const;

/** A room request. */
export type RoomRequestFrame = z.infer<(typeof roomClientFrames)[number]>;

/** The room request of one type. */
export type RoomRequestOf<T extends RoomRequestFrame["type"]> = Extract<RoomRequestFrame, { type: T }>;
