import { kindMessageParser, type Restored, type TimerFired } from "../runtime/index.ts";
import { z } from "zod";
import { codeSchema, playerIdSchema, playerRefSchema } from "../common/index.ts";
import { vehicleSchema } from "./activity-frames.ts";
import { activitySettingsSchema } from "./activity-settings.ts";

/** What an activity lobby accepts: from the gateway (players' requests, connection changes) and its room. */

/** The argument of the spawn that opens a lobby: the activity's settings, copied from the directory's configuration. */
export const activityLobbyInitSchema = z.strictObject({ settings: activitySettingsSchema });

/** An activity lobby's creation argument. */
export type ActivityLobbyInit = z.input<typeof activityLobbyInitSchema>;

/** Every message an activity lobby handles, the acting player first. */
export const activityLobbyMessageSchema = z.discriminatedUnion("type", [
  // The gateway, with the lobby the directory chose; the vehicle is the player's pick (racing).
  z.strictObject({ type: z.literal("join"), player: playerRefSchema, vehicle: vehicleSchema.optional() }),
  // The player left, joined another activity, or loaded into a room (the gateway tells).
  z.strictObject({ type: z.literal("leave"), player: playerIdSchema }),
  z.strictObject({ type: z.literal("ready"), player: playerIdSchema, ready: z.boolean() }),
  // From the gateway when a player's session drops or comes back.
  z.strictObject({ type: z.literal("connection"), player: playerIdSchema, connected: z.boolean() }),
  // From the lobby's room when its match is over (rooms tell the lobby that started them).
  z.strictObject({ type: z.literal("roomEnded"), room: codeSchema }),
  // From a gateway on another node, before it sends a returning player here: has the lobby started?
  z.strictObject({ type: z.literal("status") }),
  // From the runtime when the room of the start could not be created.
  z.strictObject({ type: z.literal("spawnFailed"), key: z.string().min(1).max(200) }),
]);

/** An activity lobby message. */
export type ActivityLobbyMessage = z.output<typeof activityLobbyMessageSchema>;

/** The activity lobby message with this `type`. */
export type ActivityLobbyMessageOf<T extends ActivityLobbyMessage["type"]> = Extract<
  ActivityLobbyMessage,
  { type: T }
>;

const parseIncoming = kindMessageParser(activityLobbyMessageSchema);

/** Validates a message for an activity lobby; undefined for anything malformed or not a lobby's. */
export function parseActivityLobbyMessage(
  message: unknown,
): ActivityLobbyMessage | TimerFired | Restored | undefined {
  return parseIncoming(message);
}
