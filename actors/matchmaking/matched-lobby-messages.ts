import { kindMessageParser, type Restored, type TimerFired } from "../runtime/index.ts";
import { z } from "zod";
import { codeSchema, playerIdSchema, playerNameSchema } from "../common/index.ts";
import { jsonObjectSchema, lobbyTypeSchema, teamCodeSchema } from "./lobby-type.ts";
import { matchedLobbyKeySchema } from "./matchmaking-keys.ts";
import { lobbyPhaseSchema, matchedMemberSchema, timetableSchema } from "./matched-lobby-state.ts";

/** What a matched lobby accepts (from its queue, the gateway and its room) and what it reports back. */

/** A player of a group the queue places: the requester first, then its party. */
export const groupPlayerSchema = z.strictObject({
  id: playerIdSchema,
  name: playerNameSchema,
  rating: z.number(),
  isReady: z.boolean(),
  extra: jsonObjectSchema,
});

/** Players who join together, in one team: a queue entry (the requester and its party). */
export const groupSchema = z.strictObject({
  /** The queue entry the group came from, echoed in `joinResult`. */
  entry: z.string().min(1),
  /** The team the request named; null lets the lobby choose among its `autoAssign` teams. */
  team: teamCodeSchema.nullable(),
  players: z.array(groupPlayerSchema).min(1),
});

/** A group. */
export type Group = z.output<typeof groupSchema>;

/** The spawn argument: the type, the queue, the region and the creating group (its first player owns it). */
export const matchedLobbyInitSchema = z.strictObject({
  lobbyType: lobbyTypeSchema,
  queue: z.string().min(1),
  region: z.string().min(1),
  settings: jsonObjectSchema,
  group: groupSchema,
});

/** A matched lobby's creation argument. */
export type MatchedLobbyInit = z.input<typeof matchedLobbyInitSchema>;

/** Every message a matched lobby handles. */
export const matchedLobbyMessageSchema = z.discriminatedUnion("type", [
  // From the queue: a matched group. Answered with `joinResult` to the queue (a tell has no asker).
  z.strictObject({ type: z.literal("join"), group: groupSchema }),
  // From the gateway.
  z.strictObject({ type: z.literal("leave"), player: playerIdSchema }),
  z.strictObject({ type: z.literal("ready"), player: playerIdSchema, ready: z.boolean() }),
  z.strictObject({ type: z.literal("accept"), player: playerIdSchema }),
  z.strictObject({ type: z.literal("decline"), player: playerIdSchema }),
  // From the lobby's room, and from the runtime when the room's spawn failed.
  z.strictObject({ type: z.literal("roomEnded"), room: codeSchema }),
  z.strictObject({ type: z.literal("spawnFailed"), key: z.string().min(1) }),
]);

/** A matched lobby message. */
export type MatchedLobbyMessage = z.output<typeof matchedLobbyMessageSchema>;

/** The matched lobby message with this `type`. */
export type MatchedLobbyMessageOf<T extends MatchedLobbyMessage["type"]> = Extract<
  MatchedLobbyMessage,
  { type: T }
>;

const parseIncoming = kindMessageParser(matchedLobbyMessageSchema);

/** Validates a message for a matched lobby; undefined for anything else. */
export function parseMatchedLobbyMessage(
  message: unknown,
): MatchedLobbyMessage | TimerFired | Restored | undefined {
  return parseIncoming(message);
}

/**
 * A lobby's report to its queue: everything the queue matches on and a filter may read. `version` counts
 * the lobby's reports, so a late one is recognised.
 */
export const lobbyStatusSchema = z.strictObject({
  type: z.literal("lobbyStatus"),
  lobby: matchedLobbyKeySchema,
  version: z.number().int().min(1),
  region: z.string().min(1),
  phase: lobbyPhaseSchema,
  rating: z.number(),
  /** The lobby takes joiners now (its phase and rules allow it); `free` says where. */
  open: z.boolean(),
  free: z.record(z.string(), z.number().int()),
  owner: playerIdSchema,
  settings: jsonObjectSchema,
  round: z.number().int().min(1),
  timetable: timetableSchema,
  members: z.array(matchedMemberSchema),
});

/** A lobby's status report. */
export type LobbyStatus = z.output<typeof lobbyStatusSchema>;

/** The lobby is gone (disbanded, emptied, or removed on start). Final. */
export const lobbyClosedSchema = z.strictObject({
  type: z.literal("lobbyClosed"),
  lobby: matchedLobbyKeySchema,
});

/** The lobby's answer to a `join`: taken, or refused (full, started, gone from the rules' view). */
export const joinResultSchema = z.strictObject({
  type: z.literal("joinResult"),
  entry: z.string().min(1),
  lobby: matchedLobbyKeySchema,
  ok: z.boolean(),
});

/** A join's outcome. */
export type JoinResult = z.output<typeof joinResultSchema>;
