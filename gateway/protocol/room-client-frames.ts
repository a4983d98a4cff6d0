import { z } from "zod";
import { requestFrame } from "./request-frame.ts";
import { modeSchema } from "../../actors/common/index.ts";
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

/** The room's own types a client's requests carry (a command, the game options, turn durability). */
export type { CommandData, RoomGameOptions, TurnDurability } from "../../actors/room/room-fields.ts";

/**
 * The relay room's requests (docs/rooms.md, SPEC §5). The fields are the room's own schemas, so the
 * wire bounds are the room's bounds. Each maps to one room message, with the session's player as sender.
 */

/** Creates a room directly: the creator is side 0 and host; the node draws the six-letter code. */
export const createRoomFrame = requestFrame("createRoom", {
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
export const joinRoomFrame = requestFrame("joinRoom", {
  code: z.string().max(32).describe("room code; trimmed and upper-cased by the node"),
  side: sideSchema.optional(),
  token: z
    .string()
    .regex(/^[A-Za-z0-9]{16,64}$/)
    .optional()
    .describe("the activityTransfer's token: an activity room seats you only with it"),
});

/** Ready (or not) in the room; the match starts when every human seat is ready and connected. */
export const roomReadyFrame = requestFrame("roomReady", {
  ready: z.boolean(),
});

/** The host marks a free seat as AI (or clears it) before the start. */
export const setAiFrame = requestFrame("setAi", {
  side: sideSchema,
  ai: z.boolean(),
});

/** The host changes mode, map (null clears it), teams (one per seat) or options (replaced whole). */
export const roomSetupFrame = requestFrame("roomSetup", {
  mode: modeSchema.optional(),
  map: mapSchema.nullable().optional(),
  teams: z.array(teamSchema).max(roomLimits.maxDirectSeats).optional(),
  options: roomOptionsSchema.optional(),
});

/** A command for the next turn: a string, or bytes on a msgpack connection. */
export const commandFrame = requestFrame("command", {
  data: commandDataSchema,
});

/** The player's checksum of its game state after a turn it received. */
export const checksumRequestFrame = requestFrame("checksum", {
  turn: turnSchema.min(1),
  value: checksumValueSchema,
});

/** A chat line to everyone in the room or to the sender's team. */
export const chatRequestFrame = requestFrame("chat", {
  channel: chatChannelSchema,
  text: z.string().min(1).max(roomLimits.maxChatLength),
});

/** The host resumes a paused clock; `handToAi` gives the missing players' seats to AI first. */
export const resumeRoomFrame = requestFrame("resumeRoom", {
  handToAi: z.boolean().optional(),
});

/** The host ends the match (or, before the start, closes the room). */
export const abortRoomFrame = requestFrame("abortRoom", {});

/** Leaves a room created directly: before the start the seat is freed, after it the seat goes to AI. */
export const leaveRoomFrame = requestFrame("leaveRoom", {});

/**
 * A player that came back asks for the turns after the last one it holds: they come as `turn` frames,
 * in order, after a `turnsGone` when the room no longer holds the oldest; answers the last turn sent.
 */
export const roomTurnsFrame = requestFrame("roomTurns", {
  after: turnSchema,
});

/**
 * After a failover, the answer to `turnsWanted { after }`: the turns the player holds after `after`, in
 * order, in batches that fit the frame limit (each batch continues where the last ended); `done` on the
 * last. The SDK sends it by itself.
 */
export const heldTurnsFrame = requestFrame("heldTurns", {
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
