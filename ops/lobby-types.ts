import {
  lobbyTypesFileSchema,
  type LobbyTypeInput,
  type LobbyTypesFile,
  type LobbyTypesFileInput,
} from "../actors/matchmaking/index.ts";
import { readJsonFile, type JsonFileResult } from "./json-file.ts";

/**
 * The lobby types of rating matchmaking a node offers (docs/matchmaking.md): read from the JSON file of
 * the `lobbyTypesFile` setting, or the seed's `CursorPartyV2` without one.
 */

/** The seed's `CursorPartyV2`: one auto-assigned team of 1–8, generous start rules. */
export const cursorPartyV2: LobbyTypeInput = {
  id: "CursorPartyV2",
  desc: "relay protocol version 2",
  teams: [{ code: "all", minUsers: 1, maxUsers: 8, autoAssign: true }],
  roomConfig: { roomConfig_key1: "customValue", roomConfig_key2: 99 },
  rules: {
    allowEarlyStartWithoutMax: true,
    forceOnTimeStartWithoutReady: true,
    allowJoinInProgress: true,
    onTimeStartSecs: 300,
    disbandOnStart: false,
    everyReadyMinPercent: 0,
    everyReadyMinNum: 1,
    earliestStartSecs: 1,
    tooLateSecs: 300,
  },
};

/** The built-in example: `CursorPartyV2` alone (docs/matchmaking.md shows it). */
export const exampleLobbyTypes: LobbyTypesFileInput = { lobbyTypes: [cursorPartyV2] };

/** Reads and validates a lobby types file; the example without `path`. Never throws. */
export function readLobbyTypes(path: string | undefined): JsonFileResult<LobbyTypesFile> {
  return readJsonFile(path, lobbyTypesFileSchema, exampleLobbyTypes);
}
