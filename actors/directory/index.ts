/** The directory of public lobbies and rooms (`directory/lobbies`) that browse requests read. */
export { directoryKind } from "./directory-kind.ts";
export type { DirectoryOptions } from "./directory-kind.ts";
export { browse, browseLimit, directoryTiming, sweepTimerName } from "./directory-machine.ts";
export type { BrowseAnswer, BrowseLine, BrowseRoomLine } from "./directory-machine.ts";
export {
  browseKindSchema,
  browseMessageSchema,
  directoryMessageSchema,
  parseDirectoryMessage,
} from "./directory-messages.ts";
export type { BrowseKind, DirectoryMessage } from "./directory-messages.ts";
export {
  directoryEntrySchema,
  directoryRoomEntrySchema,
  directorySchemaVersion,
  directoryStateSchema,
  upgradeDirectoryState,
} from "./directory-state.ts";
export type { DirectoryEntry, DirectoryRoomEntry, DirectoryState } from "./directory-state.ts";
