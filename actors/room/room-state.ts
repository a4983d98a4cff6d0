import { z } from "zod";
import {
  codeSchema,
  modeSchema,
  playerIdSchema,
  playerNameSchema,
  transferTokenSchema,
  blobRefSchema,
} from "../common/index.ts";
import {
  checksumValueSchema,
  commandDataSchema,
  mapSchema,
  roomOptionsSchema,
  sideSchema,
  teamSchema,
  turnDurabilitySchema,
  turnMsSchema,
  turnSchema,
} from "./room-fields.ts";
import { roomLimits } from "./room-limits.ts";

/** The relay room's snapshot (SPEC §5): setup, seats, the turn clock and what the match relayed lately. */

/** The version of the room state's shape: 1 was the minimal room, read by `upgradeRoomState`. */
export const roomSchemaVersion = 2;

/**
 * A seat. A human seat has a player; an AI seat (`ai`) has none; a free seat (a room created directly,
 * before the start) has neither. `ready` and `connected` mean something for human seats only.
 */
export const roomSeatSchema = z.strictObject({
  seat: sideSchema,
  team: teamSchema,
  player: playerIdSchema.nullable(),
  name: playerNameSchema.nullable(),
  ai: z.boolean(),
  ready: z.boolean(),
  connected: z.boolean(),
});

/** One seat of a relay room. */
export type RoomSeat = z.output<typeof roomSeatSchema>;

/** Why the clock stands still: a human is missing, or the room was restored on a new node. */
export const pauseReasonSchema = z.enum(["missing", "restored"]);

/** The turn clock: stopped (before the start and after the end), running towards `nextAt`, or paused. */
export const clockSchema = z.discriminatedUnion("status", [
  z.strictObject({ status: z.literal("stopped") }),
  z.strictObject({ status: z.literal("running"), nextAt: z.number() }),
  z.strictObject({ status: z.literal("paused"), reason: pauseReasonSchema }),
]);

/** A command waiting for the next turn. */
export const queuedCommandSchema = z.strictObject({ side: sideSchema, data: commandDataSchema });

/** A turn as it was sent. `ai` lists the sides played by AI from this turn on. */
export const sentTurnSchema = z.strictObject({
  turn: turnSchema,
  commands: z.array(queuedCommandSchema),
  ai: z.array(sideSchema),
});

/** A sent turn. */
export type SentTurn = z.output<typeof sentTurnSchema>;

/** The checksums received for one turn, in arrival order; `desync` once the mismatch was reported. */
export const checksumRecordSchema = z.strictObject({
  turn: turnSchema,
  values: z.array(z.strictObject({ side: sideSchema, value: checksumValueSchema })),
  desync: z.boolean(),
});

/**
 * What a seat says it holds after a failover: its last turn and either a digest of turns 1..lastTurn
 * (`turnsReport`) or, with `digest` null, the turns themselves (`heldTurns`, checked turn by turn as they
 * arrive). `complete` is false while a seat's `heldTurns` batches are still coming.
 */
export const turnsReportSchema = z.strictObject({
  side: sideSchema,
  lastTurn: turnSchema,
  digest: z.string().min(1).max(roomLimits.maxDigestLength).nullable(),
  complete: z.boolean().default(true),
});

/** A turn collected from the seats after a failover: the first copy, and the side that gave it. */
export const heldTurnSchema = sentTurnSchema.extend({ side: sideSchema });

/** The last restore on a new node: the turn its snapshot had reached and what each seat reported. */
export const recoverySchema = z.strictObject({
  reason: z.enum(["failover", "migration"]),
  fromTurn: turnSchema,
  reports: z.array(turnsReportSchema),
  /** The turns after `fromTurn` the seats sent back, in turn order (their first copies). */
  turns: z.array(heldTurnSchema).default([]),
});

/** The last restore. */
export type Recovery = z.output<typeof recoverySchema>;

/** The whole room state. */
export const roomStateSchema = z.strictObject({
  code: codeSchema,
  /** The key of the lobby that started the room (where `roomEnded` goes); null when created directly. */
  lobby: z.string().min(1).nullable(),
  host: playerIdSchema,
  phase: z.enum(["setup", "playing", "ended"]),
  mode: modeSchema,
  map: mapSchema.nullable(),
  options: roomOptionsSchema,
  seats: z.array(roomSeatSchema).min(1),
  /** The shared seed every client builds the match from. */
  seed: z.number().int().min(0),
  turnMs: turnMsSchema,
  turnDurability: turnDurabilitySchema,
  clock: clockSchema,
  /** The last turn sent; 0 before the first. */
  lastTurn: turnSchema,
  /** Commands for turn lastTurn + 1, in arrival order. */
  queue: z.array(queuedCommandSchema),
  /** Sides handed to AI since the last turn; the next turn announces them. */
  handedToAi: z.array(sideSchema),
  /**
   * The latest turns sent, oldest first: in memory a window bounded by `catchUpTurnsKept` and
   * `catchUpBytesKept` (room-window.ts); the snapshot keeps the last `recentTurnsKept` of them.
   */
  recentTurns: z.array(sentTurnSchema),
  checksums: z.array(checksumRecordSchema),
  recovery: recoverySchema.nullable(),
  /** When a directly created room nobody is connected to closes (its `abandon` timer); null while anyone is. */
  abandonAt: z.number().nullable().default(null),
  /**
   * The transfer tokens of seated players who have not arrived yet (an activity lobby's room): such a
   * player takes its seat only by joining with its token, and until then the room refuses its requests.
   * Empty for every other room.
   */
  tokens: z.record(playerIdSchema, transferTokenSchema).default({}),
  /** The document the room was created or started with (its BlobStore reference), deleted when it ends. */
  blob: blobRefSchema.nullable().default(null),
  /** A room created directly with `public: true`: listed in the browse list while in setup. */
  public: z.boolean().default(false),
});

/** A room's state. */
export type RoomState = z.output<typeof roomStateSchema>;

/** The seats with a human player, in seat order. */
export function humanSeats(state: Pick<RoomState, "seats">): RoomSeat[] {
  return state.seats.filter((s) => s.player !== null);
}

/** The human players seated in the room, in seat order. */
export function seatedPlayers(state: Pick<RoomState, "seats">): string[] {
  return state.seats.flatMap((s) => (s.player === null ? [] : [s.player]));
}

/** The seat of a human player, if it has one. */
export function seatOf(state: Pick<RoomState, "seats">, player: string): RoomSeat | undefined {
  return state.seats.find((s) => s.player === player);
}

/** Human players whose connection is gone, in seat order. */
export function missingPlayers(state: Pick<RoomState, "seats">): string[] {
  return humanSeats(state).flatMap((s) => (s.connected || s.player === null ? [] : [s.player]));
}

/** The state with one seat replaced. */
export function withSeat(state: RoomState, side: number, change: Partial<RoomSeat>): RoomState {
  return { ...state, seats: state.seats.map((s) => (s.seat === side ? { ...s, ...change } : s)) };
}
