import type { ActorKind } from "../runtime/index.ts";
import { handleDirectory } from "./directory-machine.ts";
import type { DirectoryMessage } from "./directory-messages.ts";
import { parseDirectoryMessage } from "./directory-messages.ts";
import type { DirectoryState } from "./directory-state.ts";
import { directorySchemaVersion, upgradeDirectoryState } from "./directory-state.ts";

/** The directory kind (`directory/lobbies`): the browse list of public lobbies and public rooms. */

/** Options of the directory kind; none yet, kept so every kind is made the same way. */
export type DirectoryOptions = Record<string, never>;

/** Makes the directory kind. */
export function directoryKind(_options: DirectoryOptions = {}): ActorKind<DirectoryState, DirectoryMessage> {
  return {
    kind: "directory",
    schemaVersion: directorySchemaVersion,
    create: () => ({ state: { listings: {}, rooms: {}, sweepAt: null }, effects: [] }),
    parse: parseDirectoryMessage,
    handle: handleDirectory,
    upgrade: upgradeDirectoryState,
    // Its sweep timer runs while anything is listed; an empty list may rest in the store.
    idle: (state) => state.sweepAt === null,
  };
}
