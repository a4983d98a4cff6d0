/** Private invite-code lobbies (SPEC §1). */
export { lobbyKind } from "./lobby-kind.ts";
export { defaultLobbyOptions, lobbyOptionsSchema, teamSizeOf } from "./lobby-options.ts";
export type { LobbyOptions } from "./lobby-options.ts";
export { metadataSchema } from "./lobby-metadata.ts";
export type { LobbyMetadata } from "./lobby-metadata.ts";
export { lobbyInitSchema, lobbyMessageSchema, parseLobbyMessage } from "./lobby-messages.ts";
export type { LobbyInit, LobbyMessage, LobbyMessageOf } from "./lobby-messages.ts";
export { lobbySchemaVersion, lobbyStateSchema } from "./lobby-state.ts";
export { upgradeLobbyState } from "./lobby-upgrade.ts";
export type { Door, LobbyRoom, LobbyState, Member } from "./lobby-state.ts";
export {
  dataKeySchema,
  dataLimitsSchema,
  dataValueSchema,
  dataVisibilitySchema,
  dataDeleteSchema,
  lobbyDataSchema,
  lobbyDataSetSchema,
  memberDataSchema,
  memberDataSetSchema,
} from "./lobby-data-schema.ts";
export type { DataLimits, DataValue, DataVisibility, LobbyData, MemberData } from "./lobby-data-schema.ts";
export { createProblem } from "./lobby-create.ts";
export { lobbyChatChannelSchema } from "./lobby-chat-channel.ts";
export { lobbyFrame } from "./lobby-frames.ts";
export { lobbyIdle } from "./lobby-machine.ts";
export { graceTimerName, returnTimerName } from "./lobby-timers.ts";
export { membersFit, seatMembers, teamOf } from "./seats.ts";
export { listingOf } from "./visibility.ts";
