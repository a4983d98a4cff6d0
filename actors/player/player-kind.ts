import type { ActorKind } from "../runtime/index.ts";
import { handlePlayer } from "./player-machine.ts";
import type { PlayerMessage } from "./player-messages.ts";
import { parsePlayerMessage } from "./player-messages.ts";
import type { PlayerState } from "./player-state.ts";
import { playerSchemaVersion, upgradePlayerState } from "./player-state.ts";

/** The player registry kind (`player/<id>`): one entry per player, asked by gateways and told by lobbies. */

/** Options of the player kind; none yet, kept so every kind is made the same way. */
export type PlayerOptions = Record<string, never>;

/** Makes the player registry kind. */
export function playerKind(_options: PlayerOptions = {}): ActorKind<PlayerState, PlayerMessage> {
  return {
    kind: "player",
    schemaVersion: playerSchemaVersion,
    create: () => ({
      state: {
        lobby: null,
        creates: [],
        leaving: [],
        search: null,
        entering: null,
        room: null,
        matched: null,
        match: null,
      },
      effects: [],
    }),
    parse: parsePlayerMessage,
    handle: handlePlayer,
    upgrade: upgradePlayerState,
    // Nothing is ever pending: the entry may always be passivated and read back from its snapshot.
    idle: () => true,
  };
}
