import { z } from "zod";
import { metadataSchema } from "../../actors/lobby/lobby-metadata.ts";
import {
  activityClientFrames,
  type activityReadyFrame,
  type joinActivityFrame,
  type leaveActivityFrame,
} from "./activity-frames.ts";
import { matchmakingClientFrames, type MatchmakingRequestFrame } from "./matchmaking-frames.ts";
import { answeredThroughSchema, requestIdSchema } from "./request-id.ts";
import { roomClientFrames } from "./room-client-frames.ts";
import { blobClientFrames, blobIdSchema } from "./blob-frames.ts";
import {
  createLobbyFields,
  lobbyDataClientFrames,
  lobbyPasswordSchema,
  type LobbyDataRequestFrame,
} from "./lobby-data-frames.ts";
import { queryClientFrames } from "./query-frames.ts";

/**
 * Frames a client sends. Every frame is a msgpack map (or a JSON text frame) with a `type`; requests carry
 * an `id` unique within the session, so a retry after a reconnect is applied once. Objects are strict:
 * an unknown field is refused, so nobody can slip a player id or an epoch into a request.
 */

export { requestIdSchema };

const text = (max: number) => z.string().max(max);
const lobbyCode = text(32).describe("invite code; trimmed and upper-cased by the node");

/** Public metadata of a lobby, shown in browse lists: the lobby's own schema, so both sides agree. */
export { metadataSchema };

export const helloFrame = z
  .object({
    type: z.literal("hello"),
    protocol: z.number().int(),
    token: text(4096),
    resume: text(512).optional(),
    /**
     * With `resume`: the code of the lobby the client was in. A node whose welcome said `lobbyHint`
     * finds that lobby first (the lobby itself says whether the player is a member), without waiting for
     * the player's record — after a failover the lobby is served as soon as it is taken over.
     */
    lobby: lobbyCode.optional(),
  })
  .strict();

export const joinFrame = z
  .object({
    type: z.literal("join"),
    id: requestIdSchema,
    ack: answeredThroughSchema,
    code: lobbyCode,
    /** The lobby's password, if it has one (WRONG_PASSWORD otherwise). */
    password: lobbyPasswordSchema.optional(),
  })
  .strict();
export const createFrame = z
  .object({
    type: z.literal("create"),
    id: requestIdSchema,
    ack: answeredThroughSchema,
    public: z.boolean().optional(),
    /** The older form of public lobby data: each field becomes a public data key. */
    metadata: metadataSchema.optional(),
    ...createLobbyFields,
  })
  .strict();
export const leaveFrame = z
  .object({ type: z.literal("leave"), id: requestIdSchema, ack: answeredThroughSchema })
  .strict();
export const readyFrame = z
  .object({ type: z.literal("ready"), id: requestIdSchema, ack: answeredThroughSchema, ready: z.boolean() })
  .strict();
export const profileFrame = z
  .object({
    type: z.literal("profile"),
    id: requestIdSchema,
    ack: answeredThroughSchema,
    name: text(32).min(1),
  })
  .strict();
export const startFrame = z
  .object({
    type: z.literal("start"),
    id: requestIdSchema,
    ack: answeredThroughSchema,
    mode: text(32).min(1),
    /** A finished upload's id (`finishBlob`): the room's document. */
    blob: blobIdSchema.optional(),
  })
  .strict();
export const makeHostFrame = z
  .object({
    type: z.literal("makeHost"),
    id: requestIdSchema,
    ack: answeredThroughSchema,
    player: text(128).min(1),
  })
  .strict();
export const returnFrame = z
  .object({ type: z.literal("return"), id: requestIdSchema, ack: answeredThroughSchema })
  .strict();
export const finishFrame = z
  .object({ type: z.literal("finish"), id: requestIdSchema, ack: answeredThroughSchema })
  .strict();
export const browseFrame = z
  .object({
    type: z.literal("browse"),
    id: requestIdSchema,
    ack: answeredThroughSchema,
    /** Which lines: public lobbies, public rooms in setup, or both (the default). */
    kind: z.enum(["lobbies", "rooms", "all"]).optional(),
    mode: text(32).optional(),
    /** Only lines with a free seat. */
    freeOnly: z.boolean().optional(),
  })
  .strict();
export const pingFrame = z.object({ type: z.literal("ping"), t: z.number() }).strict();

/** Every frame a client may send after `hello`. */
export const clientFrameSchema = z.discriminatedUnion("type", [
  helloFrame,
  joinFrame,
  createFrame,
  leaveFrame,
  readyFrame,
  profileFrame,
  startFrame,
  makeHostFrame,
  returnFrame,
  finishFrame,
  browseFrame,
  ...lobbyDataClientFrames,
  ...activityClientFrames,
  ...matchmakingClientFrames,
  ...roomClientFrames,
  ...blobClientFrames,
  ...queryClientFrames,
  pingFrame,
]);

export type ClientFrame = z.infer<typeof clientFrameSchema>;
export type HelloFrame = z.infer<typeof helloFrame>;
/** Client frames that are requests (carry an id and are answered by `result` or `error`). */
export type RequestFrame = Exclude<ClientFrame, HelloFrame | z.infer<typeof pingFrame>>;
/** The private lobby's requests (`join` … `finish`). */
export type LobbyRequestFrame = z.infer<
  | typeof joinFrame
  | typeof createFrame
  | typeof leaveFrame
  | typeof readyFrame
  | typeof profileFrame
  | typeof startFrame
  | typeof makeHostFrame
  | typeof returnFrame
  | typeof finishFrame
>;
/** The private lobby's data, door, moderation and chat requests (docs/lobbies.md). */
export type { LobbyDataRequestFrame };
/** The answer to a `browse`: the directory's lines, as the SDK hands them on. */
export type { BrowseAnswer, BrowseLine, BrowseRoomLine } from "../../actors/directory/browse-answer.ts";
/** A browse of the public lobbies and rooms (the directory's). */
export type BrowseRequestFrame = z.infer<typeof browseFrame>;
/** The activity lobbies' requests (`joinActivity`, `activityReady`, `leaveActivity`). */
export type ActivityRequestFrame = z.infer<
  typeof joinActivityFrame | typeof activityReadyFrame | typeof leaveActivityFrame
>;
/** Rating matchmaking's requests (docs/matchmaking.md). */
export type { MatchmakingRequestFrame };
