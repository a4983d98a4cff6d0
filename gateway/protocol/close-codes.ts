/**
 * WebSocket close codes a node uses (4000–4999), each saying why. Never renamed or reused; listed in
 * docs/protocol.md (a test checks that).
 */
export const CloseCodes = {
  PROTOCOL: {
    code: 4000,
    text: "the first frame was not a valid hello, or the protocol version is not supported",
  },
  UNAUTHORIZED: { code: 4001, text: "the token is missing, expired, forged or signed with an unknown key" },
  HELLO_TIMEOUT: { code: 4002, text: "no hello arrived in time" },
  KEYS_UNAVAILABLE: {
    code: 4003,
    text: "the node could not fetch the keys to check the token with yet; reconnect after a pause",
  },
  TOO_LARGE: { code: 4009, text: "a frame was larger than maxFrameBytes" },
  RATE_LIMITED: { code: 4029, text: "the connection sent frames faster than its rate limit" },
  SLOW_CONSUMER: { code: 4030, text: "the client read too slowly: its unsent bytes passed maxBufferedBytes" },
  REPLACED: { code: 4031, text: "a newer login of the same player took over this session" },
  SHUTDOWN: { code: 4032, text: "the node is shutting down; reconnect with the resume token anywhere" },
  RESET: {
    code: 4033,
    text: "the node was declared dead by its peers and came back empty; reconnect with the resume token anywhere",
  },
} as const;

/** The name of a close reason. */
export type CloseReason = keyof typeof CloseCodes;
