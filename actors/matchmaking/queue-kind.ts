import type { ActorContext, ActorKind, Transition } from "../runtime/index.ts";
import type { LobbyTypesFile, LobbyTypesFileInput } from "./lobby-type.ts";
import { findLobbyType, lobbyTypesFileSchema } from "./lobby-type.ts";
import { lobbyTypeOfQueueKey } from "./matchmaking-keys.ts";
import { handleQueue } from "./queue-machine.ts";
import { withPartyNews } from "./queue-party-news.ts";
import type { QueueMessage } from "./queue-messages.ts";
import { parseQueueMessage } from "./queue-messages.ts";
import type { QueueEnv, QueueOptionsInput } from "./queue-options.ts";
import { queueOptionsSchema } from "./queue-options.ts";
import type { QueueState } from "./queue-state.ts";
import { queueSchemaVersion, upgradeQueueState } from "./queue-state.ts";

/** The queue kind (`queue/<type>`): one per configured lobby type, created on its first request. */

/** A key naming no configured lobby type throws, so no snapshot is written for it. */
function typeOf(file: LobbyTypesFile, key: string) {
  const id = lobbyTypeOfQueueKey(key);
  const lobbyType = id === undefined ? undefined : findLobbyType(file, id);
  if (lobbyType === undefined) throw new RangeError(`${key} names no configured lobby type`);
  return lobbyType;
}

/** A new, empty queue. */
export function createQueue(file: LobbyTypesFile, ctx: ActorContext): Transition<QueueState> {
  const lobbyType = typeOf(file, ctx.key);
  return {
    state: {
      lobbyType: lobbyType.id,
      nextEntry: 1,
      nextLobby: 1,
      tickAt: null,
      entries: [],
      lobbies: [],
      nextMatch: 1,
      matches: [],
    },
    effects: [],
  };
}

/** Makes the queue kind from the lobby types file and the options, both validated once here. */
export function queueKind(
  lobbyTypes: LobbyTypesFileInput,
  options: QueueOptionsInput = {},
): ActorKind<QueueState, QueueMessage> {
  const file = lobbyTypesFileSchema.parse(lobbyTypes);
  const checked = queueOptionsSchema.parse(options);
  const envOf = (ctx: ActorContext): QueueEnv => ({
    lobbyType: typeOf(file, ctx.key),
    options: checked,
    ctx,
  });
  return {
    kind: "queue",
    schemaVersion: queueSchemaVersion,
    create: (_init, ctx) => createQueue(file, ctx),
    parse: parseQueueMessage,
    handle: (state, message, ctx) => withPartyNews(state, handleQueue(state, message, envOf(ctx)), ctx.key),
    upgrade: upgradeQueueState,
    // Its step timer runs while anyone waits; the lobby view is kept by the lobbies' own reports.
    // A match whose room runs is only a record: it waits for no timer.
    idle: (state) => state.entries.length === 0 && state.matches.every((m) => m.room !== null),
  };
}
