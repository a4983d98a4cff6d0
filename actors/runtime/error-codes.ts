/**
 * Every refusal Foyer can give, with its retry class. Codes are never renamed or reused; each one is
 * listed in docs/protocol.md (a test checks that). Retryable codes are retried by the SDK until the
 * call's deadline; final codes are handed to the caller.
 */
export const ErrorCodes = {
  UNAVAILABLE: { retryable: true, text: "the node cannot serve this now; retry after retryAfterMs" },
  MOVED: { retryable: true, text: "the key lives elsewhere now; look it up again and retry" },
  RATE_LIMITED: { retryable: true, text: "too many requests on this connection; retry after retryAfterMs" },
  FULL: { retryable: false, text: "the lobby has maxMembers members, or every node holds its lobby limit" },
  NOT_FOUND: { retryable: false, text: "no lobby with this code exists anywhere in the cluster" },
  NOT_HOST: { retryable: false, text: "only the host may do this" },
  TOO_MANY_PLAYERS: { retryable: false, text: "more members than 2 × the mode's team size" },
  ALREADY_PLAYING: { retryable: false, text: "a room is already playing" },
  NOT_IN_LOBBY: { retryable: false, text: "the caller (or the named player) is not a member of the lobby" },
  SEARCHING: {
    retryable: false,
    text: "the player's lobby is searching as a party: its host cancels, or the player leaves the lobby, first",
  },
  NOT_PLAYING: { retryable: false, text: "no room is playing" },
  INVALID: { retryable: false, text: "the frame or its fields are not valid" },
  UNAUTHORIZED: { retryable: false, text: "missing, expired or forged credentials" },
  TOO_LARGE: { retryable: false, text: "the frame is larger than the node's limit" },
  JOIN_FAIL: { retryable: false, text: "no lobby matched the request" },
  TIMEOUT: { retryable: false, text: "the call's deadline passed before it was answered" },
  INTERNAL: { retryable: false, text: "the handler failed; the lobby kept its last good state" },
  VERSION_CONFLICT: {
    retryable: false,
    text: "the update named ifVersion, and the lobby changed since: read the new version and decide again",
  },
  LOBBY_LOCKED: { retryable: false, text: "the lobby is locked: no joins (its members stay)" },
  WRONG_PASSWORD: {
    retryable: false,
    text: "the lobby has a password, and this was not it (or none was given)",
  },
  BANNED: { retryable: false, text: "the host banned this player from the lobby for the lobby's life" },
  DATA_LIMIT: { retryable: false, text: "lobby or member data (or the ban list) over the node's limits" },
} as const;

/** A stable error code, as sent in error frames. */
export type ErrorCode = keyof typeof ErrorCodes;

/** All error codes, in declaration order. */
export const errorCodeList = Object.keys(ErrorCodes) as ErrorCode[];

/** True for codes that the SDK retries by itself. */
export function isRetryable(code: ErrorCode): boolean {
  return ErrorCodes[code].retryable;
}
