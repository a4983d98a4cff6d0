import type { ActorContext, ActorKind } from "../runtime/index.ts";
import type { Step } from "./activity-env.ts";
import type { ActivityLobbyMessage } from "./activity-lobby-messages.ts";
import { activityLobbyInitSchema, parseActivityLobbyMessage } from "./activity-lobby-messages.ts";
import { activityLobbyIdle, activityLobbyPinned, handleActivityLobby } from "./activity-lobby-machine.ts";
import type { ActivityLobbyOptionsInput } from "./activity-lobby-options.ts";
import { activityLobbyOptionsSchema } from "./activity-lobby-options.ts";
import type { ActivityLobbyState } from "./activity-lobby-state.ts";
import { activityLobbySchemaVersion, upgradeActivityLobbyState } from "./activity-lobby-state.ts";
import { initialCountdown } from "./countdown.ts";
import { withReport } from "./lobby-status.ts";
import { withRegistryNews } from "./registry-news.ts";

/** The activity lobby kind (`activityLobby/<activity>/<n>`), SPEC §2. */

/**
 * A new, empty lobby with its countdown held at `waitTime`; its directory spawns it and the gateway then
 * sends the join. An invalid init is a caller's bug, so it throws and the runtime reports INTERNAL.
 */
export function createActivityLobby(init: unknown, _ctx: ActorContext): Step {
  const { settings } = activityLobbyInitSchema.parse(init);
  const state: ActivityLobbyState = {
    settings,
    players: [],
    reports: 0,
    stage: { phase: "waiting", countdown: initialCountdown(settings.waitTime) },
  };
  return { state, effects: [] };
}

/** Makes the activity lobby kind; the options are validated once here, so a bad configuration fails at start-up. */
export function activityLobbyKind(
  options: ActivityLobbyOptionsInput = {},
): ActorKind<ActivityLobbyState, ActivityLobbyMessage> {
  const checked = activityLobbyOptionsSchema.parse(options);
  return {
    kind: "activityLobby",
    schemaVersion: activityLobbySchemaVersion,
    create: createActivityLobby,
    parse: parseActivityLobbyMessage,
    handle: (state, message, ctx) =>
      withRegistryNews(
        state,
        withReport(state, handleActivityLobby(state, message, { options: checked, ctx }), ctx.key),
        ctx.key,
      ),
    upgrade: upgradeActivityLobbyState,
    idle: activityLobbyIdle,
    pinned: activityLobbyPinned,
  };
}
