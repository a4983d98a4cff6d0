import { kindMessageParser, type Restored, type TimerFired } from "../runtime/index.ts";
import { z } from "zod";
import { playerRefSchema } from "../common/index.ts";
import { vehicleSchema } from "./activity-frames.ts";
import { activityLobbyKeySchema } from "./activity-keys.ts";
import { lobbyClosedSchema, lobbyStatusSchema } from "./lobby-status.ts";

/** What an activity directory accepts: joins from gateways, reports from its lobbies. */

/** Every message an activity directory handles. */
export const activityDirectoryMessageSchema = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.literal("join"),
    player: playerRefSchema,
    vehicle: vehicleSchema.optional(),
    /** The activity lobby the player is in now, if any (the gateway knows it): left when the player moves on. */
    previous: activityLobbyKeySchema.optional(),
    /** The lobby that just refused this player FULL: taken as full until it reports again. */
    full: activityLobbyKeySchema.optional(),
  }),
  lobbyStatusSchema,
  lobbyClosedSchema,
]);

/** An activity directory message. */
export type ActivityDirectoryMessage = z.output<typeof activityDirectoryMessageSchema>;

/** The activity directory message with this `type`. */
export type ActivityDirectoryMessageOf<T extends ActivityDirectoryMessage["type"]> = Extract<
  ActivityDirectoryMessage,
  { type: T }
>;

const parseIncoming = kindMessageParser(activityDirectoryMessageSchema);

/** Validates a message for an activity directory; undefined for anything else. */
export function parseActivityDirectoryMessage(
  message: unknown,
): ActivityDirectoryMessage | TimerFired | Restored | undefined {
  return parseIncoming(message);
}
