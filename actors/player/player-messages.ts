import { z } from "zod";
import { restoredSchema, timerFiredSchema, type Restored, type TimerFired } from "../runtime/index.ts";
import { codeSchema } from "../common/index.ts";
import { entrySchema } from "./whereabouts.ts";

/** What a player's registry entry accepts: membership news from lobbies, and questions from gateways. */

const lobbyKeySchema = z.string().min(1).max(200);
const createRequest = { session: z.string().min(1).max(128), id: z.number().int().min(0), code: codeSchema };

/** Every message a player entry handles. */
export const playerMessageSchema = z.discriminatedUnion("type", [
  // From a lobby the player joined or left.
  z.strictObject({ type: z.literal("joined"), lobby: lobbyKeySchema }),
  z.strictObject({
    type: z.literal("left"),
    lobby: lobbyKeySchema,
    /** Taken out by the host or the studio (`kick`), not of its own accord. */
    kicked: z.boolean().optional(),
  }),
  // From a matchmaking queue (SPEC §4): the player's match room runs, or ended.
  z.strictObject({ type: z.literal("matchStarted"), queue: lobbyKeySchema, room: lobbyKeySchema }),
  z.strictObject({ type: z.literal("matchEnded"), room: lobbyKeySchema }),
  // From a queue (a party's entry left it) or a gateway (a cancel): the search is over.
  z.strictObject({
    type: z.literal("searchEnded"),
    queue: lobbyKeySchema,
    entry: z.string().min(1).max(64).nullable(),
  }),
  // From a queue: the search was placed in a matched lobby (player-placed.ts).
  z.strictObject({
    type: z.literal("placed"),
    queue: lobbyKeySchema,
    entry: z.string().min(1).max(64),
    lobby: lobbyKeySchema,
    party: z.boolean(),
  }),
  // From a gateway: where the player goes next, decided by the rule (whereabouts.ts), then how it went.
  // `seated` is the room the gateway sees the player's session seated in (its lobby's room or a direct one).
  z.strictObject({ type: z.literal("enter"), entry: entrySchema, seated: lobbyKeySchema.nullable() }),
  z.strictObject({
    type: z.literal("entered"),
    entry: entrySchema,
    /** The queue's entry id of a search. */
    queueEntry: z.string().min(1).max(64).optional(),
    /** The matched lobby a `createLobby` opened. */
    lobby: lobbyKeySchema.optional(),
    /** The room a `createRoom` or `joinRoom` seated the player in. */
    room: lobbyKeySchema.optional(),
  }),
  // From a gateway: the player left the seat it took directly, or the room turned out gone.
  z.strictObject({ type: z.literal("seatLeft"), room: lobbyKeySchema }),
  z.strictObject({ type: z.literal("enterFailed"), entry: entrySchema }),
  z.strictObject({ type: z.literal("get") }),
  z.strictObject({ type: z.literal("beginCreate"), ...createRequest }),
  z.strictObject({ type: z.literal("replaceCreate"), ...createRequest }),
]);

/** A player message. */
export type PlayerMessage = z.output<typeof playerMessageSchema>;

const incomingSchema = z.discriminatedUnion("type", [
  ...playerMessageSchema.options,
  timerFiredSchema,
  restoredSchema,
]);

/** Validates a message for a player entry; undefined for anything else. */
export function parsePlayerMessage(message: unknown): PlayerMessage | TimerFired | Restored | undefined {
  const result = incomingSchema.safeParse(message);
  return result.success ? result.data : undefined;
}
