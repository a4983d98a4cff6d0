/**
 * The gateway as the rest of the node sees it: the WebSocket server and what it is built from, the wire
 * schemas, and the SDK. `ops/` imports the gateway only through this file, so the gateway's inner layout
 * can change without touching the node's assembly.
 */
export { GatewayServer, parseTarget, type GatewayOptions } from "./gateway-server.ts";
export type { ConnectionDeps, ConnectionLimits } from "./connection-deps.ts";
export {
  RequestRouter,
  LobbyRequests,
  RoomRequests,
  BlobRequests,
  type RequestRouterDeps,
  type LobbyRequestsDeps,
  type RoomRequestsDeps,
  type BlobRequestsDeps,
  type LobbyListings,
  admitPlayers,
  type AdmittedPlayers,
} from "./requests/index.ts";
export {
  Session,
  SessionRegistry,
  enteredOrNot,
  heldOnClose,
  inKeyHere,
  type SessionSocket,
} from "./sessions/index.ts";
export { errorFrame, defaultRetryAfterMs } from "./protocol/error-mapping.ts";
export { FoyerError, isFoyerError } from "./protocol/foyer-error.ts";
export {
  PlayerTokenVerifier,
  playerTokenVerifierOf,
  signPlayerToken,
  verifyPlayerToken,
  type PlayerClaims,
  type TokenKey,
} from "./auth/index.ts";
export { CloseCodes, type CloseReason } from "./protocol/close-codes.ts";
export { clientFrameSchema, type RequestFrame } from "./protocol/client-frames.ts";
export { PROTOCOL_VERSION, serverFrameSchema, type RedirectReason } from "./protocol/server-frames.ts";
export { FoyerClient, type FoyerClientOptions } from "./client/foyer-client.ts";
export { hashLobbyPassword } from "./lobby-password.ts";
export { createNodeClient, fetchDevToken } from "./client/node.ts";
