import { dataKeySchema, dataValueSchema, type LobbyData } from "./lobby-data-schema.ts";
import { lobbySchemaVersion, lobbyStateSchema, type LobbyState } from "./lobby-state.ts";

/** Reading lobby snapshots written by older releases. */

/** The most members any node allows (the lobby options' bound). */
const anyNodeCap = 100;

/**
 * Version 1 kept `metadata` (fixed at create, public) and no data, door, bans or version. Its metadata
 * becomes public data; a field whose name is not a data key (version 1 took any name) is left out, since
 * no request could name it again. Its seats are the node's cap, as they were.
 */
function fromVersion1(state: Record<string, unknown>, nodeCap: number): unknown {
  const { metadata, members, ...rest } = state;
  const data: LobbyData = {};
  for (const [key, value] of Object.entries((metadata ?? {}) as Record<string, unknown>)) {
    if (dataKeySchema.safeParse(key).success && dataValueSchema.safeParse(value).success) {
      Object.defineProperty(data, key, {
        value: { value, visibility: "public" },
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return {
    ...rest,
    members,
    data,
    version: 1,
    createdAt: 0,
    door: { maxMembers: nodeCap, locked: false, passwordHash: null },
    banned: [],
    searching: null,
  };
}

/** Reads a lobby snapshot of a known schema version; throws on anything else (the runtime refuses it). */
export function upgradeLobbyState(state: unknown, version: number, nodeCap = anyNodeCap): LobbyState {
  if (version === 1) return lobbyStateSchema.parse(fromVersion1(state as Record<string, unknown>, nodeCap));
  // Version 2 knew no party searches.
  if (version === 2) return lobbyStateSchema.parse({ ...(state as object), searching: null });
  if (version !== lobbySchemaVersion) throw new RangeError(`unknown lobby schema version ${version}`);
  return lobbyStateSchema.parse(state);
}
