/** The directory of public lobbies (`directory/lobbies`) that browse requests read. */
export { directoryKind } from "./directory-kind.ts";
export type { DirectoryOptions } from "./directory-kind.ts";
export { browse, browseLimit } from "./directory-machine.ts";
export type { BrowseLine } from "./directory-machine.ts";
export { directoryMessageSchema, parseDirectoryMessage } from "./directory-messages.ts";
export type { DirectoryMessage } from "./directory-messages.ts";
export {
  directoryEntrySchema,
  directorySchemaVersion,
  directoryStateSchema,
  upgradeDirectoryState,
} from "./directory-state.ts";
export type { DirectoryEntry, DirectoryState } from "./directory-state.ts";
