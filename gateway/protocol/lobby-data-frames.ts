import { z } from "zod";
import {
  dataDeleteSchema,
  dataValueSchema,
  dataVisibilitySchema,
  lobbyDataSchema,
  lobbyDataSetSchema,
  memberDataSchema,
  memberDataSetSchema,
} from "../../actors/lobby/lobby-data-schema.ts";
import { lobbyChatChannelSchema } from "../../actors/lobby/lobby-chat-channel.ts";
import { answeredThroughSchema, requestIdSchema } from "./request-id.ts";

/**
 * The private lobby's data, door, moderation and chat on the wire (docs/lobbies.md). The fields are the
 * lobby's own schemas, so both sides agree; the node's limits (key count, bytes) are checked by the lobby.
 */

const request = { id: requestIdSchema, ack: answeredThroughSchema };

/** A password as the player types it: hashed by the node before anything keeps it, never sent back. */
export const lobbyPasswordSchema = z.string().min(1).max(128);

/** The lobby fields a `create` may set besides `public` and `metadata`. */
export const createLobbyFields = {
  /** Lobby data to start with (a key without visibility is `public`). */
  data: lobbyDataSetSchema.optional(),
  /** Seats, at most the node's `maxMembers` (its default). */
  maxMembers: z.number().int().min(1).max(100).optional(),
  locked: z.boolean().optional(),
  password: lobbyPasswordSchema.optional(),
};

/** The host sets and deletes lobby data keys at once, optionally only if the lobby is at `ifVersion`. */
export const setLobbyDataFrame = z
  .object({
    type: z.literal("setLobbyData"),
    ...request,
    set: lobbyDataSetSchema.optional(),
    delete: dataDeleteSchema.optional(),
    ifVersion: z.number().int().min(0).optional(),
  })
  .strict();

/** A member sets and deletes keys of its own member data. */
export const setMemberDataFrame = z
  .object({
    type: z.literal("setMemberData"),
    ...request,
    set: memberDataSetSchema.optional(),
    delete: dataDeleteSchema.optional(),
  })
  .strict();

/** The host changes the door: seats, lock, password (null removes it). */
export const setLobbyDoorFrame = z
  .object({
    type: z.literal("setLobbyDoor"),
    ...request,
    maxMembers: z.number().int().min(1).max(100).optional(),
    locked: z.boolean().optional(),
    password: lobbyPasswordSchema.nullable().optional(),
  })
  .strict();

/** The host takes a member out, banned from the lobby for its life if `ban`. */
export const kickFrame = z
  .object({
    type: z.literal("kick"),
    ...request,
    player: z.string().min(1).max(128),
    ban: z.boolean().optional(),
    reason: z.string().max(200).optional(),
  })
  .strict();

/** A chat line to the lobby's members (`all`) or the sender's team (`team`). */
export const lobbyChatFrame = z
  .object({
    type: z.literal("lobbyChat"),
    ...request,
    channel: lobbyChatChannelSchema,
    text: z.string().min(1).max(500),
  })
  .strict();

/** The client's lobby data, door, moderation and chat requests. */
export const lobbyDataClientFrames = [
  setLobbyDataFrame,
  setMemberDataFrame,
  setLobbyDoorFrame,
  kickFrame,
  lobbyChatFrame,
] as const;

/** Those requests. */
export type LobbyDataRequestFrame = z.infer<(typeof lobbyDataClientFrames)[number]>;

const stamp = { key: z.string(), epoch: z.number().int(), seq: z.number().int() };

/** To a kicked player: why, and whether it may come back. Then the lobby frame without it follows. */
export const kickedFrame = z
  .object({
    type: z.literal("kicked"),
    ...stamp,
    code: z.string(),
    reason: z.string().nullable(),
    banned: z.boolean(),
  })
  .strict();

/** A chat line of the lobby (not kept: a member away when it was sent never gets it). */
export const lobbyChatLineFrame = z
  .object({
    type: z.literal("lobbyChat"),
    ...stamp,
    code: z.string(),
    channel: lobbyChatChannelSchema,
    player: z.string(),
    name: z.string(),
    text: z.string(),
  })
  .strict();

/** The fields the `lobby` frame has for data and the door (defaults: what an older node meant). */
export const lobbyFrameDataFields = {
  /** Grows with every change of the lobby; `setLobbyData`'s `ifVersion` names it. */
  version: z.number().int().default(0),
  /** All the lobby's data: members see `public` and `member` keys. */
  data: lobbyDataSchema.default({}),
  maxMembers: z.number().int().default(8),
  locked: z.boolean().default(false),
  hasPassword: z.boolean().default(false),
};

/** A member's own data, as the `lobby` frame lists it. */
export const memberFrameDataField = { data: memberDataSchema.default({}) };

/** The lobby data server frames. */
export const lobbyDataServerFrames = [kickedFrame, lobbyChatLineFrame] as const;

export { dataValueSchema, dataVisibilitySchema };
