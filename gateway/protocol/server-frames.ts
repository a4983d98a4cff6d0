import { z } from "zod";
// The code list only, not the runtime: the SDK reads this file, and the browser bundle stays small.
import { errorCodeList, type ErrorCode } from "../../actors/runtime/error-codes.ts";
import { requestIdSchema } from "./client-frames.ts";
import { activityEventFrame, activityServerFrames, activityTransferFrame } from "./activity-frames.ts";
import { roomFrame, roomFrames, turnsWantedFrame } from "./room-frames.ts";
import { blobDataFrame } from "./blob-frames.ts";
import { matchmakingServerFrames } from "./matchmaking-frames.ts";
import {
  kickedFrame,
  lobbyChatLineFrame,
  lobbyDataServerFrames,
  lobbyFrameDataFields,
  memberFrameDataField,
} from "./lobby-data-frames.ts";

/**
 * Frames a node sends. Frames about a key (`lobby`, `room`, `activity`, `activityTransfer`) carry the key, the owner's epoch and a
 * per-key sequence number: a client drops a frame whose epoch is older than one it has seen.
 */

/** The current wire protocol version; a node also accepts the previous one (rolling deploys). */
export const PROTOCOL_VERSION = 1;
/** The oldest protocol version a node of this release accepts. */
export const MIN_PROTOCOL_VERSION = 1;

const errorCode = z.enum(errorCodeList as [ErrorCode, ...ErrorCode[]]);
const stamp = { key: z.string(), epoch: z.number().int(), seq: z.number().int() };

export const welcomeFrame = z
  .object({
    type: z.literal("welcome"),
    protocol: z.number().int(),
    session: z.string(),
    resume: z.string(),
    player: z.object({ id: z.string(), name: z.string() }),
    node: z.string(),
    /** The node's region (`--region`), when it has one: what the SDK's `pingData` is keyed by. */
    region: z.string().optional(),
    /**
     * One node URL per region of the fleet (this node's for its own): the SDK measures its round trip to
     * each with a `ping` before `hello` and sends the result as `pingData` (SPEC §3).
     */
    regions: z.array(z.object({ region: z.string(), url: z.string() }).strict()).optional(),
    resumed: z.boolean(),
    /** This node reads `hello.lobby` on a resume (older nodes refuse a hello that has it). */
    lobbyHint: z.boolean().optional(),
    /** This node reads a request's `ack` (older nodes refuse a request that has one). */
    acks: z.boolean().optional(),
  })
  .strict();

export const resultFrame = z
  .object({ type: z.literal("result"), id: requestIdSchema, value: z.unknown() })
  .strict();

export const errorFrame = z
  .object({
    type: z.literal("error"),
    id: requestIdSchema.optional(),
    code: errorCode,
    message: z.string(),
    retryAfterMs: z.number().int().min(0).optional(),
  })
  .strict();

export const memberSchema = z
  .object({
    player: z.string(),
    memberId: z.number().int(),
    name: z.string(),
    ready: z.boolean(),
    team: z.number().int().nullable(),
    connected: z.boolean(),
    inRoom: z.boolean(),
    ...memberFrameDataField,
  })
  .strict();

export const seatSchema = z
  .object({ seat: z.number().int(), team: z.number().int(), player: z.string().nullable() })
  .strict();

export const lobbyFrame = z
  .object({
    type: z.literal("lobby"),
    ...stamp,
    code: z.string(),
    public: z.boolean(),
    /** The public data's values, as older clients read them (null when there are none). */
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).nullable(),
    ...lobbyFrameDataFields,
    host: z.string().nullable(),
    members: z.array(memberSchema),
    playing: z.boolean(),
    room: z
      .object({ code: z.string(), mode: z.string(), seats: z.array(seatSchema) })
      .strict()
      .nullable(),
    /** The queue search the host queued the lobby in as one party (`findLobby { party: true }`), or null. */
    searching: z.object({ lobbyType: z.string(), entry: z.string().nullable() }).strict().nullable(),
  })
  .strict();

export const pongFrame = z.object({ type: z.literal("pong"), t: z.number(), now: z.number() }).strict();

export const redirectFrame = z
  .object({
    type: z.literal("redirect"),
    url: z.string(),
    /**
     * Why the socket moves: the key lives there (`lobby`, `activity`, `room`), a new lobby is made there
     * because this node drains (`drain`) or holds its lobby limit (`full`), or the key moved (`moved`).
     */
    reason: z.enum(["lobby", "activity", "room", "drain", "full", "moved"]),
  })
  .strict();

export const serverDrainingFrame = z.object({ type: z.literal("serverDraining") }).strict();
/** After a hello: the player is in no lobby (its seat's grace ran out while it was away). */
export const noLobbyFrame = z.object({ type: z.literal("noLobby") }).strict();

export const movedFrame = z.object({ type: z.literal("moved"), key: z.string(), url: z.string() }).strict();

/** Every frame a node may send. */
export const serverFrameSchema = z.discriminatedUnion("type", [
  welcomeFrame,
  resultFrame,
  errorFrame,
  lobbyFrame,
  ...lobbyDataServerFrames,
  ...roomFrames,
  ...activityServerFrames,
  ...matchmakingServerFrames,
  pongFrame,
  redirectFrame,
  serverDrainingFrame,
  noLobbyFrame,
  movedFrame,
  blobDataFrame,
]);

export type ServerFrame = z.infer<typeof serverFrameSchema>;
export type LobbyView = z.infer<typeof lobbyFrame>;
/** What a kicked player hears. */
export type KickedView = z.infer<typeof kickedFrame>;
/** A lobby chat line. */
export type LobbyChatView = z.infer<typeof lobbyChatLineFrame>;
export type RoomView = z.infer<typeof roomFrame>;
/** A relay room's frames other than its state. */
export type RoomEventFrame = Extract<
  ServerFrame,
  { type: "turn" | "paused" | "resumed" | "checksum" | "desync" | "chat" | "turnsGone" }
>;
/** An activity lobby's event (`activity`), stamped. */
export type ActivityEventView = z.infer<typeof activityEventFrame>;
/** An activity lobby's transfer to its room, with the node URL. */
export type ActivityTransferView = z.infer<typeof activityTransferFrame>;
/** A room's request for the turns a player holds after a failover; the SDK answers it itself. */
export type TurnsWantedFrame = z.infer<typeof turnsWantedFrame>;
export type ErrorFrame = z.infer<typeof errorFrame>;
/** Why a player's socket is sent to another node. */
export type RedirectReason = z.infer<typeof redirectFrame>["reason"];
/** A frame of rating matchmaking: a matched lobby's view and events, a queue's match and failure frames. */
export type MatchmakingView = Extract<
  ServerFrame,
  {
    type:
      | "matchedLobby"
      | "matchFound"
      | "matchCancelled"
      | "matchReady"
      | "matchRunning"
      | "matchmakingFailed"
      | "lobbyStarted"
      | "lobbyRemoved"
      | "lobbyDisbanded";
  }
>;
