import { kindMessageParser, type Restored, type TimerFired } from "../runtime/index.ts";
import { z } from "zod";
import { playerIdSchema, playerRefSchema } from "../common/index.ts";
import { jsonObjectSchema, teamCodeSchema } from "./lobby-type.ts";
import { joinResultSchema, lobbyClosedSchema, lobbyStatusSchema } from "./matched-lobby-messages.ts";
import { matchedLobbyKeySchema } from "./matchmaking-keys.ts";
import { stepAlgorithmSchema } from "./step-algorithm.ts";

/** What a queue accepts: players' requests from gateways, reports from its lobbies, filter verdicts. */

/** The fields every request carries (SPEC §3); the seed's `""` team means "let the lobby choose". */
const common = {
  player: playerRefSchema,
  rating: z.number(),
  /** Other players brought along: they join the same lobby and team, with the requester's rating. */
  party: z.array(playerRefSchema).max(31).default([]),
  ready: z.boolean().default(false),
  extra: jsonObjectSchema.default({}),
  team: z.union([z.literal(""), teamCodeSchema]).default(""),
  /** Round trip in ms to each region, as the SDK measured it. */
  pingData: z.record(z.string().min(1).max(64), z.number().min(0)).default({}),
};

/** What a search adds: how long to step, how, and the filter's input. */
const search = {
  ...common,
  maxSteps: z.number().int().min(1).max(1000),
  algorithm: stepAlgorithmSchema,
  filter: jsonObjectSchema.default({}),
};

/** The three requests; `findOrCreateLobby` and `createLobby` carry the owner's settings for a new lobby. */
export const queueRequestSchemas = [
  z.strictObject({ type: z.literal("findLobby"), ...search }),
  z.strictObject({ type: z.literal("findOrCreateLobby"), ...search, settings: jsonObjectSchema.default({}) }),
  z.strictObject({ type: z.literal("createLobby"), ...common, settings: jsonObjectSchema.default({}) }),
] as const;

/**
 * What the queue tells `filters/<name>` about one candidate lobby for one entry: the seed's filter data
 * (`step`, the request's `filter` JSON, the `matchCandidate`, the requester's `pingData`).
 */
export const filterRequestSchema = z.strictObject({
  type: z.literal("filterRequest"),
  queue: z.string().min(1),
  entry: z.string().min(1),
  lobby: matchedLobbyKeySchema,
  data: z.strictObject({
    step: z.number().int().min(0),
    filter: jsonObjectSchema,
    matchCandidate: z.record(z.string(), z.unknown()),
    pingData: z.record(z.string(), z.number()),
  }),
});

/** A filter request. */
export type FilterRequest = z.output<typeof filterRequestSchema>;

/** A filter's answer about one candidate lobby for one entry (from the filter pool, ops/filters). */
export const filterVerdictSchema = z.strictObject({
  type: z.literal("filterVerdict"),
  entry: z.string().min(1),
  lobby: matchedLobbyKeySchema,
  accept: z.boolean(),
});

/** Every message a queue handles. */
export const queueMessageSchema = z.discriminatedUnion("type", [
  ...queueRequestSchemas,
  // The player gives up searching (the gateway, or its registry, tells); a group already being placed
  // cannot be called back (its registry takes the player out of the lobby once `placed`). Naming the `entry` cancels only that search, never a later one.
  z.strictObject({
    type: z.literal("cancel"),
    player: playerIdSchema,
    entry: z.string().min(1).max(64).optional(),
  }),
  // The queue's accept phase (SPEC §4): a matched player's answer, by the match id it was sent.
  z.strictObject({ type: z.literal("accept"), player: playerIdSchema, matchId: z.string().min(1).max(128) }),
  z.strictObject({ type: z.literal("decline"), player: playerIdSchema, matchId: z.string().min(1).max(128) }),
  // A match's room ended (told by the room, or by a gateway that found it gone): the record is cleared.
  z.strictObject({ type: z.literal("roomEnded"), room: z.string().min(1) }),
  // A match's room could not be created (its code was taken, its node full): asked for again.
  z.strictObject({ type: z.literal("spawnFailed"), key: z.string().min(1) }),
  // A match's room is stored (the runtime confirms the spawn): now the match is announced.
  z.strictObject({ type: z.literal("spawned"), key: z.string().min(1) }),
  // A match's room: a player arrived with its token (nothing to do, the record stays until the room ends).
  z.strictObject({ type: z.literal("leave"), player: playerIdSchema }),
  // A gateway asks for a returning player's running match (SPEC §4).
  z.strictObject({ type: z.literal("activeMatch"), player: playerIdSchema }),
  lobbyStatusSchema,
  lobbyClosedSchema,
  joinResultSchema,
  filterVerdictSchema,
]);

/** A queue message. */
export type QueueMessage = z.output<typeof queueMessageSchema>;

/** The queue message with this `type`. */
export type QueueMessageOf<T extends QueueMessage["type"]> = Extract<QueueMessage, { type: T }>;

/** A queue request as a caller may write it (defaults left out). */
export type QueueRequestInput = z.input<(typeof queueRequestSchemas)[number]>;

const parseIncoming = kindMessageParser(queueMessageSchema);

/** Validates a message for a queue; undefined for anything else. */
export function parseQueueMessage(message: unknown): QueueMessage | TimerFired | Restored | undefined {
  return parseIncoming(message);
}
