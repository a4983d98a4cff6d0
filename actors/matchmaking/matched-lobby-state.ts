import { z } from "zod";
import { codeSchema, playerIdSchema, playerNameSchema } from "../common/index.ts";
import { jsonObjectSchema, lobbyTypeSchema, teamCodeSchema } from "./lobby-type.ts";

/** A matched lobby's snapshot (SPEC §3): plain data only, so it survives msgpack and another node. */

/** The version of the matched lobby state's shape. */
export const matchedLobbySchemaVersion = 1;

/** Where a lobby stands; `disbanded` is never stored: a disbanded lobby stops. */
export const lobbyPhaseSchema = z.enum(["early", "pre_game", "starting", "playing"]);

/** A lobby's phase. */
export type LobbyPhase = z.output<typeof lobbyPhaseSchema>;

/** A member, in join order. */
export const matchedMemberSchema = z.strictObject({
  id: playerIdSchema,
  name: playerNameSchema,
  rating: z.number(),
  team: teamCodeSchema,
  isReady: z.boolean(),
  extra: jsonObjectSchema,
});

/** One member. */
export type MatchedMember = z.output<typeof matchedMemberSchema>;

/** Absolute game-clock deadlines of the current round (SPEC §3). */
export const timetableSchema = z.strictObject({
  createdAt: z.number(),
  early: z.number(),
  onTime: z.number(),
  tooLate: z.number(),
});

/** A lobby's timetable. */
export type Timetable = z.output<typeof timetableSchema>;

/** The accept phase in progress: who has accepted, and by when everyone must. */
export const acceptingSchema = z.strictObject({
  matchId: z.string().min(1),
  acceptBy: z.number(),
  accepted: z.array(playerIdSchema),
});

/** An accept phase. */
export type Accepting = z.output<typeof acceptingSchema>;

/** The whole matched lobby state. */
export const matchedLobbyStateSchema = z.strictObject({
  /** The type as it was when the lobby opened; a configuration change affects new lobbies. */
  lobbyType: lobbyTypeSchema,
  /** The queue that opened it, where its reports go. */
  queue: z.string().min(1),
  region: z.string().min(1),
  owner: playerIdSchema,
  settings: jsonObjectSchema,
  phase: lobbyPhaseSchema,
  /** Rounds played so far plus one; each return from a room starts a new round with a fresh timetable. */
  round: z.number().int().min(1),
  timetable: timetableSchema,
  members: z.array(matchedMemberSchema),
  accepting: acceptingSchema.nullable(),
  /** The code of the room spawned for the current round, or null. */
  room: codeSchema.nullable(),
  /** How many status reports the queue has been sent; each report carries the next number. */
  reports: z.number().int().min(0),
});

/** A matched lobby's state. */
export type MatchedLobbyState = z.output<typeof matchedLobbyStateSchema>;

/** Reads a snapshot of a known schema version; throws on anything else. */
export function upgradeMatchedLobbyState(state: unknown, version: number): MatchedLobbyState {
  if (version !== matchedLobbySchemaVersion)
    throw new RangeError(`unknown matched lobby schema version ${version}`);
  return matchedLobbyStateSchema.parse(state);
}
