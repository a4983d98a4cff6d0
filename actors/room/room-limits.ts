/** The bounds of a relay room: what one player may put into it, and how much of the match it keeps. */
export const roomLimits = {
  /** The turn length when the creator names none (SPEC §5: 100 ms). */
  defaultTurnMs: 100,
  minTurnMs: 10,
  maxTurnMs: 10_000,
  /** Seats of a room created directly (SPEC §5: 1 to 4). */
  maxDirectSeats: 4,
  /** One command's data, in characters (a string) or bytes (a byte array). */
  maxCommandSize: 4096,
  /** Commands one side may queue for one turn; past it the sender is told to retry after the turn. */
  maxCommandsPerSideAndTurn: 32,
  maxChatLength: 500,
  maxChecksumLength: 128,
  maxDigestLength: 128,
  /** Turns whose checksums are remembered for the desync check. */
  checksumTurnsKept: 16,
  /** The last turns sent that go into the snapshot, so a turn is written with it and can be sent again. */
  recentTurnsKept: 10,
  /**
   * The window of recent turns kept in memory for players who come back (`turns`): at most this many
   * turns (a minute at 100 ms, more than a dead socket's heartbeat takes to notice) …
   */
  catchUpTurnsKept: 600,
  /** … and at most this many bytes of command data, whichever bound comes first. */
  catchUpBytesKept: 1 << 20,
  /** Turns one `heldTurns` batch may carry after a failover. */
  maxHeldTurnsPerBatch: 600,
  /** Commands one turn may carry (4 seats of a direct room, or a lobby's seats, at 32 a turn each). */
  maxCommandsPerTurn: 2048,
  maxOptions: 32,
  /** A room created directly closes when none of its humans has been connected for this long. */
  abandonAfterMs: 30_000,
} as const;
