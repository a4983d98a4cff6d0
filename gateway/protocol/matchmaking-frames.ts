import { z } from "zod";
import {
  lobbyPhaseSchema,
  lobbyTypeIdSchema,
  matchedLobbyKeySchema,
  matchedMemberSchema,
  queueRequestSchemas,
  timetableSchema,
} from "../../actors/matchmaking/index.ts";
import { answeredThroughSchema, requestIdSchema } from "./request-id.ts";
import { requestFrame } from "./request-frame.ts";

/**
 * Rating matchmaking on the wire (docs/matchmaking.md). A request is the queue's own request schema with
 * the `lobbyType` whose queue takes it and without `player` (the session's) and the queue's `party` list:
 * a client never names other players. A search may instead say `party: true` — the host of a private
 * lobby queues its lobby's members as one party, and the gateway reads them from the lobby. The server
 * frames are what queues and matched lobbies push, with the runtime's stamp.
 */

const [findSchema, findOrCreateSchema, createSchema] = queueRequestSchemas;
const onWire = { id: requestIdSchema, ack: answeredThroughSchema, lobbyType: lobbyTypeIdSchema };
/** `true`: the host queues its private lobby's members with it, as one party. */
const asParty = { party: z.boolean().optional() };

/** Searches `lobbyType`'s lobbies step by step; fails with a `matchmakingFailed` frame by `maxSteps`. */
export const findLobbyFrame = findSchema
  .omit({ player: true, party: true })
  .extend({ ...onWire, ...asParty });

/** As `findLobby`, but opens a lobby the player owns when nothing matched by `maxSteps`. */
export const findOrCreateLobbyFrame = findOrCreateSchema
  .omit({ player: true, party: true })
  .extend({ ...onWire, ...asParty });

/** Opens a lobby of `lobbyType` at once, owned by the player. */
export const createLobbyFrame = createSchema.omit({ player: true, party: true }).extend(onWire);

/** Stops searching in `lobbyType`'s queue (a match waiting for accepts is declined). */
export const cancelSearchFrame = requestFrame("cancelSearch", {
  lobbyType: lobbyTypeIdSchema,
});

const matchId = z.string().min(1).max(160);

/** Accepts the match of a `matchFound` frame. */
export const acceptMatchFrame = requestFrame("acceptMatch", {
  matchId,
});

/** Declines the match of a `matchFound` frame. */
export const declineMatchFrame = requestFrame("declineMatch", {
  matchId,
});

/** Ready (or not) in a matched lobby the player is in. */
export const matchedReadyFrame = requestFrame("matchedReady", {
  lobby: matchedLobbyKeySchema,
  ready: z.boolean(),
});

/** Leaves a matched lobby. */
export const leaveMatchedFrame = requestFrame("leaveMatched", {
  lobby: matchedLobbyKeySchema,
});

/**
 * Asks where the player's queue match runs (SPEC §4): answered `{ queue, matchId, url, room, token }` as
 * in `matchRunning`, or null. For a client that missed the `matchRunning` sent after its welcome.
 */
export const runningMatchFrame = requestFrame("runningMatch", {});

/** The client's matchmaking requests. */
export const matchmakingClientFrames = [
  findLobbyFrame,
  findOrCreateLobbyFrame,
  createLobbyFrame,
  cancelSearchFrame,
  acceptMatchFrame,
  declineMatchFrame,
  matchedReadyFrame,
  leaveMatchedFrame,
  runningMatchFrame,
] as const;

/** What a search or create carries besides its lobby type, as a caller writes it (defaults left out). */
export type SearchFields = Omit<z.input<typeof findLobbyFrame>, "type" | "id" | "lobbyType">;
/** What a find-or-create carries: a search, and the settings of the lobby it may open. */
export type FindOrCreateFields = Omit<z.input<typeof findOrCreateLobbyFrame>, "type" | "id" | "lobbyType">;
/** What a create carries. */
export type CreateFields = Omit<z.input<typeof createLobbyFrame>, "type" | "id" | "lobbyType">;

/** A matchmaking request frame. */
export type MatchmakingRequestFrame = z.infer<(typeof matchmakingClientFrames)[number]>;

const stamp = { key: z.string(), epoch: z.number().int(), seq: z.number().int() };

/** `matchedLobby`: the whole matched lobby, after every change. */
export const matchedLobbyFrame = z.strictObject({
  type: z.literal("matchedLobby"),
  ...stamp,
  lobby: z.string(),
  lobbyType: z.string(),
  phase: lobbyPhaseSchema,
  round: z.number().int(),
  owner: z.string(),
  rating: z.number(),
  timetable: timetableSchema,
  members: z.array(matchedMemberSchema),
  room: z.string().nullable(),
});

/** `matchFound`: accept by `acceptBy`; from a matched lobby (`lobby`) or from a queue (`queue`). */
export const matchFoundFrame = z.strictObject({
  type: z.literal("matchFound"),
  ...stamp,
  matchId,
  acceptBy: z.number(),
  lobby: z.string().optional(),
  queue: z.string().optional(),
});

/** `matchCancelled`: someone declined or did not answer; a queue says whether the player searches again. */
export const matchCancelledFrame = z.strictObject({
  type: z.literal("matchCancelled"),
  ...stamp,
  matchId,
  reason: z.enum(["declined", "acceptTimeout"]),
  lobby: z.string().optional(),
  queue: z.string().optional(),
  requeued: z.boolean().optional(),
});

/** `matchReady`: everyone accepted; play `room` on the node at `url`, with this player's own `token`. */
export const matchReadyFrame = z.strictObject({
  type: z.literal("matchReady"),
  ...stamp,
  queue: z.string(),
  matchId,
  url: z.string(),
  room: z.string(),
  token: z.string(),
});

/**
 * `matchRunning`: sent by the gateway (not an actor, so not stamped) to a player who came back (resume or a
 * fresh login) while its queue match's room runs (SPEC §4): the same room, url and token as its
 * `matchReady`; `joinRoom { code: room, token }` seats it again.
 */
export const matchRunningFrame = z.strictObject({
  type: z.literal("matchRunning"),
  queue: z.string(),
  matchId,
  url: z.string(),
  room: z.string(),
  token: z.string(),
});

/** `matchmakingFailed`: a search found nothing by `maxSteps` (`JOIN_FAIL`). */
export const matchmakingFailedFrame = z.strictObject({
  type: z.literal("matchmakingFailed"),
  ...stamp,
  lobbyType: z.string(),
  entry: z.string(),
  code: z.literal("JOIN_FAIL"),
  message: z.string(),
});

/** `lobbyStarted`: the matched lobby's room runs. */
export const lobbyStartedFrame = z.strictObject({
  type: z.literal("lobbyStarted"),
  ...stamp,
  lobby: z.string(),
  room: z.string(),
});

/** `lobbyRemoved`: the player was taken out of a matched lobby (it declined, or did not accept in time). */
export const lobbyRemovedFrame = z.strictObject({
  type: z.literal("lobbyRemoved"),
  ...stamp,
  lobby: z.string(),
  reason: z.enum(["declined", "acceptTimeout"]),
});

/** `lobbyDisbanded`: the matched lobby ended (`tooLate`, or `started` with `disbandOnStart`). */
export const lobbyDisbandedFrame = z.strictObject({
  type: z.literal("lobbyDisbanded"),
  ...stamp,
  lobby: z.string(),
  reason: z.enum(["tooLate", "started"]),
});

/** The matchmaking frames a node sends. */
export const matchmakingServerFrames = [
  matchedLobbyFrame,
  matchFoundFrame,
  matchCancelledFrame,
  matchReadyFrame,
  matchRunningFrame,
  matchmakingFailedFrame,
  lobbyStartedFrame,
  lobbyRemovedFrame,
  lobbyDisbandedFrame,
] as const;
