import { z } from "zod";

/**
 * Frames a relay room pushes to its seated players (SPEC §5). Like every frame about a key they carry
 * the key, the owner's epoch and a sequence number.
 */

const stamp = { key: z.string(), epoch: z.number().int(), seq: z.number().int() };
const side = z.number().int();
const commandData = z.union([z.string(), z.instanceof(Uint8Array)]);
const optionValue = z.union([z.string(), z.number(), z.boolean()]);

export const roomSeatView = z
  .object({
    seat: side,
    team: z.number().int(),
    player: z.string().nullable(),
    name: z.string().nullable(),
    ai: z.boolean(),
    ready: z.boolean(),
    connected: z.boolean(),
  })
  .strict();

export const roomFrame = z
  .object({
    type: z.literal("room"),
    ...stamp,
    code: z.string(),
    mode: z.string(),
    map: z.string().nullable(),
    options: z.record(z.string(), optionValue),
    host: z.string(),
    phase: z.enum(["setup", "playing", "ended"]),
    ended: z.boolean(),
    seats: z.array(roomSeatView),
    seed: z.number().int(),
    turnMs: z.number().int(),
    turnDurability: z.enum(["volatile", "persisted"]),
    turn: z.number().int(),
    paused: z.enum(["missing", "restored"]).nullable(),
    /** Created directly (`createRoom`), not by a lobby: the SDK joins it again after a reconnect. */
    direct: z.boolean(),
    /** Listed in the browse list while in setup (`createRoom { public: true }`). */
    public: z.boolean(),
    /** The room's document, when it has one: fetch it with `getRoomBlob`. */
    blob: z.object({ id: z.string(), size: z.number().int(), digest: z.string() }).strict().optional(),
  })
  .strict();

export const turnFrame = z
  .object({
    type: z.literal("turn"),
    ...stamp,
    turn: z.number().int(),
    commands: z.array(z.object({ side, data: commandData }).strict()),
    ai: z.array(side).optional(),
  })
  .strict();

export const pausedFrame = z
  .object({
    type: z.literal("paused"),
    ...stamp,
    reason: z.enum(["missing", "restored"]),
    missing: z.array(z.string()),
    turn: z.number().int(),
  })
  .strict();

export const resumedFrame = z
  .object({ type: z.literal("resumed"), ...stamp, turn: z.number().int() })
  .strict();

export const checksumFrame = z
  .object({
    type: z.literal("checksum"),
    ...stamp,
    turn: z.number().int(),
    side,
    value: z.union([z.string(), z.number()]),
  })
  .strict();

export const desyncFrame = z
  .object({ type: z.literal("desync"), ...stamp, turn: z.number().int(), sides: z.array(side) })
  .strict();

export const chatFrame = z
  .object({
    type: z.literal("chat"),
    ...stamp,
    channel: z.enum(["all", "team"]),
    side,
    player: z.string(),
    text: z.string(),
  })
  .strict();

/** The room no longer holds these turns a player asked for (`roomTurns`): its window starts after `to`. */
export const turnsGoneFrame = z
  .object({ type: z.literal("turnsGone"), ...stamp, from: z.number().int(), to: z.number().int() })
  .strict();

/** After a failover the room asks for the turns the player holds after `after` (answered by `heldTurns`). */
export const turnsWantedFrame = z
  .object({ type: z.literal("turnsWanted"), ...stamp, after: z.number().int() })
  .strict();

/** The relay room's frames. */
export const roomFrames = [
  roomFrame,
  turnFrame,
  pausedFrame,
  resumedFrame,
  checksumFrame,
  desyncFrame,
  chatFrame,
  turnsGoneFrame,
  turnsWantedFrame,
] as const;
