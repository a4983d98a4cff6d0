import { z } from "zod";
import {
  activityFrameSchema,
  activityIdSchema,
  activityTransferFrameSchema,
  vehicleSchema,
} from "../../actors/activity/index.ts";
import { answeredThroughSchema, requestIdSchema } from "./request-id.ts";

/**
 * The activity lobbies' frames on the wire (docs/activity.md). The server frames are the actors' own
 * schemas with the runtime's stamp (`key`, `epoch`, `seq`); the transfer also carries the `url` of the
 * node to go to, which the gateway adds.
 */

const requestId = requestIdSchema;

/** Joins an activity: the node finds the oldest lobby of the activity with room, or opens one. */
export const joinActivityFrame = z
  .object({
    type: z.literal("joinActivity"),
    id: requestId,
    ack: answeredThroughSchema,
    activity: activityIdSchema,
    vehicle: vehicleSchema.optional(),
  })
  .strict();

/** Ready or not ready in the player's activity lobby. */
export const activityReadyFrame = z
  .object({ type: z.literal("activityReady"), id: requestId, ack: answeredThroughSchema, ready: z.boolean() })
  .strict();

/** Leaves the player's activity lobby (a success when in none). */
export const leaveActivityFrame = z
  .object({ type: z.literal("leaveActivity"), id: requestId, ack: answeredThroughSchema })
  .strict();

/** The client's activity requests. */
export const activityClientFrames = [joinActivityFrame, activityReadyFrame, leaveActivityFrame] as const;

const stamp = { key: z.string(), epoch: z.number().int(), seq: z.number().int() };

/** `activity`: one of the seed's MatchUpdate events, discriminated on `event`. */
export const activityEventFrame = z.discriminatedUnion(
  "event",
  activityFrameSchema.options.map((option) => option.extend(stamp)) as unknown as readonly [
    StampedOption<(typeof activityFrameSchema.options)[number]>,
    ...StampedOption<(typeof activityFrameSchema.options)[number]>[],
  ],
);

/** One event's schema with the stamp added (distributes over the events). */
type StampedOption<T> = T extends z.ZodObject
  ? z.ZodObject<T["shape"] & typeof stamp, z.core.$strict>
  : never;

/** `activityTransfer`: the countdown reached 0; go to this room on the node at `url`. */
export const activityTransferFrame = activityTransferFrameSchema.extend({ ...stamp, url: z.string() });

/** The activity frames a node sends. */
export const activityServerFrames = [activityEventFrame, activityTransferFrame] as const;
