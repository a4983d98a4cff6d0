/** The Foyer SDK for browsers and Node. In Node use `createNodeClient` from `gateway/client/node.ts`. */
export {
  FoyerClient,
  type FoyerClientOptions,
  type FoyerEvents,
  type RunningMatchView,
  type SocketLike,
} from "./foyer-client.ts";
export { EpochFilter } from "./epoch-filter.ts";
export { FoyerError, isFoyerError } from "../protocol/foyer-error.ts";
export type {
  ActivityEventView,
  ActivityTransferView,
  LobbyView,
  MatchmakingView,
  RoomEventFrame,
  RoomView,
} from "../protocol/server-frames.ts";
export type { CreateFields, FindOrCreateFields, SearchFields } from "../protocol/matchmaking-frames.ts";
export type {
  LobbyFilter,
  LobbyLine,
  QueryLobbiesAnswer,
  QueryLobbiesOptions,
  QuickJoinOptions,
} from "../protocol/query-frames.ts";
