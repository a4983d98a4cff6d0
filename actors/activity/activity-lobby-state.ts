import { z } from "zod";
import { codeSchema, playerIdSchema, playerNameSchema } from "../common/index.ts";
import { vehicleSchema } from "./activity-frames.ts";
import { activitySettingsSchema } from "./activity-settings.ts";

/** The activity lobby's snapshot: plain data only, so it survives msgpack and a read by another node. */

/** The version of the activity lobby state's shape; bump it with an upgrade path when the shape changes. */
export const activityLobbySchemaVersion = 1;

/** A player waiting in the lobby, in join order. */
export const activityPlayerSchema = z.strictObject({
  id: playerIdSchema,
  name: playerNameSchema,
  vehicle: vehicleSchema.nullable(),
  ready: z.boolean(),
  connected: z.boolean(),
});

/** A player of an activity lobby. */
export type ActivityPlayer = z.output<typeof activityPlayerSchema>;

/**
 * The countdown: held (below the minimum) with the time it has left, or running towards an absolute
 * deadline on the game clock (also armed as the `countdown` game timer, so a failover never lengthens it).
 */
export const countdownSchema = z.discriminatedUnion("running", [
  z.strictObject({ running: z.literal(false), remainingMs: z.number().int().min(0) }),
  z.strictObject({ running: z.literal(true), deadline: z.number() }),
]);

/** The countdown's state. */
export type Countdown = z.output<typeof countdownSchema>;

/** A player's ticket to the match: who, and the token it presents. */
export const transferSchema = z.strictObject({ player: playerIdSchema, token: z.string().min(1) });

/** One player's transfer. */
export type Transfer = z.output<typeof transferSchema>;

/** Where the lobby stands: taking players while the countdown runs, or started and seeing its players off. */
export const stageSchema = z.discriminatedUnion("phase", [
  z.strictObject({ phase: z.literal("waiting"), countdown: countdownSchema }),
  z.strictObject({
    phase: z.literal("started"),
    room: codeSchema,
    /** Every player of the match, in join order, with its token; kept so a returning session can be told again. */
    transfers: z.array(transferSchema).min(1),
  }),
]);

/** The lobby's stage. */
export type Stage = z.output<typeof stageSchema>;

/** The whole activity lobby state. */
export const activityLobbyStateSchema = z.strictObject({
  /** The activity's settings as they were when the lobby opened; a configuration change affects new lobbies. */
  settings: activitySettingsSchema,
  players: z.array(activityPlayerSchema),
  /** How many status reports the directory has been sent; each report carries the next number. */
  reports: z.number().int().min(0),
  stage: stageSchema,
});

/** An activity lobby's state. */
export type ActivityLobbyState = z.output<typeof activityLobbyStateSchema>;

/** Reads a snapshot of a known schema version; throws on anything else (the runtime refuses it). */
export function upgradeActivityLobbyState(state: unknown, version: number): ActivityLobbyState {
  if (version !== activityLobbySchemaVersion)
    throw new RangeError(`unknown activity lobby schema version ${version}`);
  return activityLobbyStateSchema.parse(state);
}

/** The player with this id. */
export function findPlayer(state: ActivityLobbyState, id: string): ActivityPlayer | undefined {
  return state.players.find((p) => p.id === id);
}

/** Every player's id, in join order: the recipients of a lobby-wide event. */
export function everyone(state: ActivityLobbyState): string[] {
  return state.players.map((p) => p.id);
}

/** The state with one player changed; the same state when the player is not in the lobby. */
export function updatePlayer(
  state: ActivityLobbyState,
  id: string,
  patch: Partial<ActivityPlayer>,
): ActivityLobbyState {
  if (findPlayer(state, id) === undefined) return state;
  return { ...state, players: state.players.map((p) => (p.id === id ? { ...p, ...patch } : p)) };
}
