/** Activity lobbies (SPEC §2): a directory per activity and the countdown lobbies it fills. */
export { activityDirectoryKind, createActivityDirectory } from "./activity-directory-kind.ts";
export { handleActivityDirectory } from "./activity-directory-machine.ts";
export type { DirectoryEnv } from "./activity-directory-machine.ts";
export {
  activityDirectoryMessageSchema,
  parseActivityDirectoryMessage,
} from "./activity-directory-messages.ts";
export type { ActivityDirectoryMessage, ActivityDirectoryMessageOf } from "./activity-directory-messages.ts";
export {
  activityDirectorySchemaVersion,
  activityDirectoryStateSchema,
  directoryLobbySchema,
  hasRoom,
  upgradeActivityDirectoryState,
} from "./activity-directory-state.ts";
export type { ActivityDirectoryState, DirectoryLobby } from "./activity-directory-state.ts";
export type { ActivityEnv } from "./activity-env.ts";
export {
  activityFrameSchema,
  activityTransferFrameSchema,
  playerAdded,
  playerReadiness,
  playerRemoved,
  secondsOf,
  vehicleSchema,
} from "./activity-frames.ts";
export type { ActivityEvent, ActivityFrame, ActivityTransferFrame, ShownPlayer } from "./activity-frames.ts";
export {
  activityDirectoryKey,
  activityLobbyKey,
  activityLobbyKeySchema,
  activityOfDirectoryKey,
} from "./activity-keys.ts";
export { activityLobbyKind, createActivityLobby } from "./activity-lobby-kind.ts";
export { activityLobbyIdle, handleActivityLobby } from "./activity-lobby-machine.ts";
export {
  activityLobbyInitSchema,
  activityLobbyMessageSchema,
  parseActivityLobbyMessage,
} from "./activity-lobby-messages.ts";
export type {
  ActivityLobbyInit,
  ActivityLobbyMessage,
  ActivityLobbyMessageOf,
} from "./activity-lobby-messages.ts";
export { activityLobbyOptionsSchema, defaultActivityLobbyOptions } from "./activity-lobby-options.ts";
export type { ActivityLobbyOptions, ActivityLobbyOptionsInput } from "./activity-lobby-options.ts";
export {
  activityLobbySchemaVersion,
  activityLobbyStateSchema,
  upgradeActivityLobbyState,
} from "./activity-lobby-state.ts";
export type {
  ActivityLobbyState,
  ActivityPlayer,
  Countdown,
  Stage,
  Transfer,
} from "./activity-lobby-state.ts";
export {
  activityIdSchema,
  activityOverridesSchema,
  activitySettingsFileSchema,
  activitySettingsSchema,
  capacity,
  findActivity,
  minimum,
  withOverrides,
} from "./activity-settings.ts";
export type {
  ActivityOverrides,
  ActivitySettings,
  ActivitySettingsFile,
  ActivitySettingsFileInput,
  ActivitySettingsInput,
} from "./activity-settings.ts";
export { activitySeats, startRetryMs } from "./activity-start.ts";
export { graceTimerName, transferTimerName } from "./activity-timers.ts";
export { countdownTimerName } from "./countdown.ts";
export { makesTeam } from "./transfer-push.ts";
export { lobbyClosedSchema, lobbyStatusSchema } from "./lobby-status.ts";
export type { LobbyStatus } from "./lobby-status.ts";
