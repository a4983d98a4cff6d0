import type { ActorContext, ActorKind, Transition } from "../runtime/index.ts";
import { activityOfDirectoryKey } from "./activity-keys.ts";
import type { ActivityDirectoryMessage } from "./activity-directory-messages.ts";
import { parseActivityDirectoryMessage } from "./activity-directory-messages.ts";
import { handleActivityDirectory } from "./activity-directory-machine.ts";
import type { ActivityDirectoryState } from "./activity-directory-state.ts";
import { activityDirectorySchemaVersion, upgradeActivityDirectoryState } from "./activity-directory-state.ts";
import type { ActivitySettingsFile, ActivitySettingsFileInput } from "./activity-settings.ts";
import { activitySettingsFileSchema, findActivity } from "./activity-settings.ts";

/** The activity directory kind (`activity/<id>`): one per configured activity, created on its first join. */

/**
 * A new directory with no lobbies. A key naming no configured activity throws, so no snapshot is written
 * for it and the asker gets NOT_FOUND (the gateway checks ids against the same configuration first).
 */
export function createActivityDirectory(
  activities: ActivitySettingsFile,
  ctx: ActorContext,
): Transition<ActivityDirectoryState> {
  const activity = activityOfDirectoryKey(ctx.key);
  if (activity === undefined || findActivity(activities, activity) === undefined) {
    throw new RangeError(`${ctx.key} names no configured activity`);
  }
  return { state: { activity, next: 1, lobbies: [] }, effects: [] };
}

/** Makes the activity directory kind from the activity configuration, validated once here. */
export function activityDirectoryKind(
  activities: ActivitySettingsFileInput,
): ActorKind<ActivityDirectoryState, ActivityDirectoryMessage> {
  const checked = activitySettingsFileSchema.parse(activities);
  return {
    kind: "activity",
    schemaVersion: activityDirectorySchemaVersion,
    create: (_init, ctx) => createActivityDirectory(checked, ctx),
    parse: parseActivityDirectoryMessage,
    handle: (state, message, ctx) => handleActivityDirectory(state, message, { activities: checked, ctx }),
    upgrade: upgradeActivityDirectoryState,
    // No timers: the list is kept by the lobbies' own reports.
    idle: () => true,
  };
}
