/** The player registry (`player/<id>`): where a player is (the one rule deciding it), and idempotent creates. */
export { playerKind } from "./player-kind.ts";
export type { PlayerOptions } from "./player-kind.ts";
export { parsePlayerMessage, playerMessageSchema } from "./player-messages.ts";
export type { PlayerMessage } from "./player-messages.ts";
export {
  createMemoryMs,
  entryIntentMs,
  leaveRetryMs,
  maxLeaveTries,
  maxRememberedCreates,
  playerSchemaVersion,
  playerStateSchema,
  upgradePlayerState,
} from "./player-state.ts";
export type { CreateRecord, PlayerState } from "./player-state.ts";
export { decideEntry, entrySchema } from "./whereabouts.ts";
export type { Decision, Departure, Entry, SearchRecord, Whereabouts } from "./whereabouts.ts";
export { driveLeavesTimer } from "./player-departures.ts";
