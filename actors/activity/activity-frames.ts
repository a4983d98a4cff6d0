import { z } from "zod";
import { codeSchema, playerIdSchema, playerNameSchema } from "../common/index.ts";
import { pushTo as pushFrame, type Effect } from "../runtime/index.ts";
import { activityIdSchema } from "./activity-settings.ts";

/**
 * What players of an activity lobby receive: the seed's MatchUpdate messages as one typed `activity`
 * frame carrying the seed's event name, and the transfer to the match's room. The runtime adds `key` (the
 * lobby's key), `epoch` and `seq` to every frame.
 */

/** A vehicle a player chose for the activity (the seed's `droppedItem`, an object id). */
export const vehicleSchema = z.string().min(1).max(64);

/** Seconds of countdown left, with millisecond precision (the seed's `time=3:`, a float). */
const timeSchema = z.number().min(0);

const activity = { type: z.literal("activity") };

/** An `activity` frame, discriminated on the seed's event name. */
export const activityFrameSchema = z.discriminatedUnion("event", [
  // `vehicle` comes first, as the seed shows `droppedItem` before the player's line.
  z.strictObject({
    ...activity,
    event: z.literal("PLAYER_ADDED"),
    vehicle: vehicleSchema.optional(),
    player: playerIdSchema,
    name: playerNameSchema,
  }),
  z.strictObject({ ...activity, event: z.literal("PLAYER_REMOVED"), player: playerIdSchema }),
  z.strictObject({ ...activity, event: z.literal("PLAYER_READY"), player: playerIdSchema }),
  z.strictObject({ ...activity, event: z.literal("PLAYER_NOT_READY"), player: playerIdSchema }),
  z.strictObject({ ...activity, event: z.literal("PHASE_WAIT_READY"), time: timeSchema }),
  z.strictObject({ ...activity, event: z.literal("PHASE_WAIT_START"), time: timeSchema }),
  // Foyer's own: the seed has no message for a countdown that stops below the minimum.
  z.strictObject({ ...activity, event: z.literal("PHASE_WAIT_PAUSED"), time: timeSchema }),
]);

/** An `activity` frame. */
export type ActivityFrame = z.output<typeof activityFrameSchema>;

/** The event names an `activity` frame carries. */
export type ActivityEvent = ActivityFrame["event"];

/**
 * Where a player goes when the countdown runs out: the room's code and the player's own token; the
 * gateway adds the node URL. `team` lists the players made a team (2 or 3 of them), else null.
 */
export const activityTransferFrameSchema = z.strictObject({
  type: z.literal("activityTransfer"),
  activity: activityIdSchema,
  map: z.string().nullable(),
  room: codeSchema,
  token: z.string().min(1),
  team: z.array(playerIdSchema).nullable(),
});

/** An `activityTransfer` frame. */
export type ActivityTransferFrame = z.output<typeof activityTransferFrameSchema>;

/** What a PLAYER_ADDED line shows of a player. */
export interface ShownPlayer {
  readonly id: string;
  readonly name: string;
  readonly vehicle: string | null;
}

/** Seconds, as frames carry them, from milliseconds. */
export function secondsOf(ms: number): number {
  return Math.max(0, ms) / 1000;
}

/** PLAYER_ADDED for a player; its vehicle, if it chose one, before its line. */
export function playerAdded(player: ShownPlayer): ActivityFrame {
  return player.vehicle === null
    ? { type: "activity", event: "PLAYER_ADDED", player: player.id, name: player.name }
    : {
        type: "activity",
        event: "PLAYER_ADDED",
        vehicle: player.vehicle,
        player: player.id,
        name: player.name,
      };
}

/** PLAYER_REMOVED for a player who left. */
export function playerRemoved(player: string): ActivityFrame {
  return { type: "activity", event: "PLAYER_REMOVED", player };
}

/** PLAYER_READY or PLAYER_NOT_READY for a player. */
export function playerReadiness(player: string, ready: boolean): ActivityFrame {
  return { type: "activity", event: ready ? "PLAYER_READY" : "PLAYER_NOT_READY", player };
}

/** A countdown event with the time left. */
export function phase(
  event: "PHASE_WAIT_READY" | "PHASE_WAIT_START" | "PHASE_WAIT_PAUSED",
  ms: number,
): ActivityFrame {
  return { type: "activity", event, time: secondsOf(ms) };
}

/** A push of one activity frame (the runtime's pushTo, typed to this kind's frames); none when nobody is to receive it. */
export function pushTo(to: readonly string[], frame: ActivityFrame | ActivityTransferFrame): Effect[] {
  return pushFrame(to, frame);
}
