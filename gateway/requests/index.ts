/**
 * A session's requests: the router that sends each frame type to its kind's handler, and the handlers
 * (private lobby, activity, matchmaking, room, blob, lobby queries).
 */
export { RequestRouter, type RequestRouterDeps } from "./request-router.ts";
export { LobbyRequests, type LobbyRequestsDeps } from "./lobby-requests.ts";
export { ActivityRequests, type ActivityRequestsDeps } from "./activity-requests.ts";
export { MatchmakingRequests, type MatchmakingRequestsDeps } from "./matchmaking-requests.ts";
export { RoomRequests, type RoomRequestsDeps } from "./room-requests.ts";
export { BlobRequests, type BlobRequestsDeps } from "./blob-requests.ts";
export { QueryRequests, type LobbyListings, type QueryRequestsDeps } from "./query-requests.ts";
export { refused } from "./refused.ts";
export { admitPlayers, type AdmittedPlayers } from "./players-entry.ts";
