/** The player registry (`player/<id>`): which lobby a player is in, and idempotent lobby creates. */
export { playerKind } from "./player-kind.ts";
export type { PlayerOptions } from "./player-kind.ts";
export { parsePlayerMessage, playerMessageSchema } from "./player-messages.ts";
export type { PlayerMessage } from "./player-messages.ts";
export {
  createMemoryMs,
  leaveRetryMs,
  maxLeaveTries,
  maxRememberedCreates,
  playerSchemaVersion,
  playerStateSchema,
  upgradePlayerState,
} from "./player-state.ts";
export type { CreateRecord, PlayerState } from "./player-state.ts";
