import { kindMessageParser, type Restored, type TimerFired } from "../runtime/index.ts";
import { z } from "zod";
import { lobbyChatChannelSchema } from "./lobby-chat-channel.ts";
import {
  blobRefSchema,
  codeSchema,
  listingCheckSchema,
  modeSchema,
  playerIdSchema,
  playerNameSchema,
  playerRefSchema,
} from "../common/index.ts";
import { metadataSchema } from "./lobby-metadata.ts";
import { dataDeleteSchema, lobbyDataSetSchema, memberDataSetSchema } from "./lobby-data-schema.ts";

/** A password's hash as the gateway made it (docs/lobbies.md); the clear password never comes here. */
const passwordHashSchema = z.string().min(1).max(256);

/** Seats a lobby may have; the node's own cap (`maxMembers`) is checked by the handler. */
const maxMembersSchema = z.number().int().min(1).max(100);

/** What a lobby accepts: from the gateway (players' requests, connection changes) and from its room. */

/**
 * The argument of the spawn that creates a lobby: its code, its host (first member) and visibility. A
 * lobby the studio's backend makes for its players (docs/server-api.md) also lists the other members and
 * how long their seats are kept for them: they are away until they connect.
 */
export const lobbyInitSchema = z.strictObject({
  code: codeSchema,
  host: playerRefSchema,
  public: z.boolean().default(false),
  metadata: metadataSchema.nullable().default(null),
  /** Members after the host, in join order. */
  members: z.array(playerRefSchema).max(100).default([]),
  /** Set: every member (the host too) starts away, with this long to connect before it loses its seat. */
  reserveSeconds: z.number().int().min(1).max(3600).optional(),
  /** Lobby data to start with; `metadata` (the older field) is public data under it. */
  data: lobbyDataSetSchema.default({}),
  /** The seats; the node's cap without it. */
  maxMembers: maxMembersSchema.optional(),
  locked: z.boolean().default(false),
  passwordHash: passwordHashSchema.nullable().default(null),
});

/** A lobby's creation argument. */
export type LobbyInit = z.input<typeof lobbyInitSchema>;

/** Every message a lobby handles, the acting player first. */
export const lobbyMessageSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("join"),
    player: playerRefSchema,
    /** The hash of the password the player gave, if it gave one. */
    passwordHash: passwordHashSchema.optional(),
  }),
  z.strictObject({ type: z.literal("leave"), player: playerIdSchema }),
  z.strictObject({ type: z.literal("ready"), player: playerIdSchema, ready: z.boolean() }),
  z.strictObject({ type: z.literal("profile"), player: playerIdSchema, name: playerNameSchema }),
  z.strictObject({ type: z.literal("makeHost"), player: playerIdSchema, target: playerIdSchema }),
  z.strictObject({
    type: z.literal("start"),
    player: playerIdSchema,
    mode: modeSchema,
    /** A document for the room (the gateway checked the blob exists); the room keeps its id. */
    blob: blobRefSchema.optional(),
  }),
  z.strictObject({ type: z.literal("return"), player: playerIdSchema }),
  // From the gateway when a player's session drops or comes back.
  z.strictObject({ type: z.literal("connection"), player: playerIdSchema, connected: z.boolean() }),
  // A member is taken out: by the host (`player`), or by the studio's backend (docs/server-api.md) without one.
  z.strictObject({
    type: z.literal("kick"),
    target: playerIdSchema,
    player: playerIdSchema.optional(),
    /** The player may not join this lobby again while it lives. */
    ban: z.boolean().optional(),
    /** Told to the kicked player. */
    reason: z.string().max(200).optional(),
  }),
  // Lobby data: the host's (or, without `player`, the studio's) sets and deletes, applied together.
  z.strictObject({
    type: z.literal("setData"),
    player: playerIdSchema.optional(),
    set: lobbyDataSetSchema.default({}),
    delete: dataDeleteSchema.default([]),
    /** Applied only if the lobby is still at this version (VERSION_CONFLICT otherwise). */
    ifVersion: z.number().int().min(0).optional(),
  }),
  // A member's own data.
  z.strictObject({
    type: z.literal("setMemberData"),
    player: playerIdSchema,
    set: memberDataSetSchema.default({}),
    delete: dataDeleteSchema.default([]),
  }),
  // The door: seats, lock, password (a hash; null removes it). The host's, or the studio's without `player`.
  z.strictObject({
    type: z.literal("setDoor"),
    player: playerIdSchema.optional(),
    maxMembers: maxMembersSchema.optional(),
    locked: z.boolean().optional(),
    passwordHash: passwordHashSchema.nullable().optional(),
  }),
  // A chat line to the members (not kept: see lobby-chat.ts).
  z.strictObject({
    type: z.literal("chat"),
    player: playerIdSchema,
    channel: lobbyChatChannelSchema,
    text: z.string().min(1).max(500),
  }),
  // From the studio's backend: the lobby as its members see it. Read-only.
  z.strictObject({ type: z.literal("view") }),
  // From the lobby's room when its match is over.
  z.strictObject({ type: z.literal("roomEnded"), room: codeSchema }),
  // From the lobby's room when a new node restored it: which of its seats are connected (to this lobby).
  z.strictObject({ type: z.literal("roomRestored"), room: codeSchema }),
  // From the runtime when the room the lobby spawned could not be created.
  z.strictObject({ type: z.literal("spawnFailed"), key: z.string().min(1).max(200) }),
  // From the host's registry: the lobby searches as a party, or its party search ended.
  z.strictObject({
    type: z.literal("partySearch"),
    host: playerIdSchema,
    lobbyType: z.string().min(1).max(64),
    entry: z.string().min(1).max(64).nullable(),
  }),
  z.strictObject({
    type: z.literal("partySearchEnded"),
    lobbyType: z.string().min(1).max(64),
    entry: z.string().min(1).max(64).nullable(),
  }),
  // From the directory: say the browse-list line again (the lobby kind answers it).
  listingCheckSchema,
]);

/** A lobby message. */
export type LobbyMessage = z.output<typeof lobbyMessageSchema>;

/** The lobby message with this `type`. */
export type LobbyMessageOf<T extends LobbyMessage["type"]> = Extract<LobbyMessage, { type: T }>;

const parseIncoming = kindMessageParser(lobbyMessageSchema);

/** Validates a message for a lobby; undefined for anything malformed or not a lobby's. */
export function parseLobbyMessage(message: unknown): LobbyMessage | TimerFired | Restored | undefined {
  return parseIncoming(message);
}
