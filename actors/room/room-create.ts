import { z } from "zod";
import { reply, type ActorContext } from "../runtime/index.ts";
import { blobRefSchema, codeSchema, modeSchema, playerRefSchema, roomInitSchema } from "../common/index.ts";
import { startMatch } from "./room-clock.ts";
import { mapSchema, roomOptionsSchema, turnDurabilitySchema, turnMsSchema } from "./room-fields.ts";
import { pushRoom } from "./room-frames.ts";
import { roomLimits } from "./room-limits.ts";
import type { RoomSeat, RoomState } from "./room-state.ts";
import type { Step } from "./room-transition.ts";

/** The two ways a room comes to be (SPEC §5): created directly by its host, or started by a lobby. */

const clockChoices = {
  turnMs: turnMsSchema.optional(),
  turnDurability: turnDurabilitySchema.optional(),
};

/** Started by a lobby: the lobby's seats and host (actors/common/room-init.ts), and it starts at once. */
export const lobbyRoomInitSchema = roomInitSchema.extend(clockChoices);

/** Created directly: 1 to 4 seats, side 0 the creator and host; the match starts when every human is ready. */
export const directRoomInitSchema = z.strictObject({
  code: codeSchema,
  direct: z.literal(true),
  host: playerRefSchema,
  seats: z.number().int().min(1).max(roomLimits.maxDirectSeats),
  mode: modeSchema,
  map: mapSchema.nullable().optional(),
  options: roomOptionsSchema.optional(),
  /** The host's document, uploaded to the BlobStore first; the room keeps only this reference. */
  blob: blobRefSchema.optional(),
  /** Listed in the browse list while in setup (docs/rooms.md, "The browse list"). */
  public: z.boolean().optional(),
  ...clockChoices,
});

/** A room's creation argument, either way. The gateway validates a direct create with it before spawning. */
export const roomCreateSchema = z.union([directRoomInitSchema, lobbyRoomInitSchema]);

/** A room's creation argument. */
export type RoomCreate = z.input<typeof roomCreateSchema>;

function baseState(
  init: z.output<typeof roomCreateSchema>,
  seats: RoomSeat[],
  ctx: ActorContext,
): Omit<RoomState, "lobby" | "host" | "phase" | "map" | "options"> {
  return {
    code: init.code,
    mode: init.mode,
    seats,
    seed: ctx.random.int(2 ** 31),
    turnMs: init.turnMs ?? roomLimits.defaultTurnMs,
    turnDurability: init.turnDurability ?? "volatile",
    clock: { status: "stopped" },
    lastTurn: 0,
    queue: [],
    handedToAi: [],
    recentTurns: [],
    checksums: [],
    recovery: null,
    abandonAt: null,
    tokens: {},
    blob: init.blob ?? null,
    public: false,
  };
}

function createDirect(init: z.output<typeof directRoomInitSchema>, ctx: ActorContext): Step {
  const seats: RoomSeat[] = Array.from({ length: init.seats }, (_, side) => ({
    seat: side,
    // Every side its own team until the host sets teams.
    team: side,
    player: side === 0 ? init.host.id : null,
    name: side === 0 ? init.host.name : null,
    ai: false,
    ready: false,
    connected: side === 0,
  }));
  const state: RoomState = {
    ...baseState(init, seats, ctx),
    lobby: null,
    host: init.host.id,
    phase: "setup",
    map: init.map ?? null,
    options: init.options ?? {},
    public: init.public ?? false,
  };
  return { state, effects: [...pushRoom(state), reply({ room: init.code, side: 0 })] };
}

function createForLobby(init: z.output<typeof lobbyRoomInitSchema>, ctx: ActorContext): Step {
  const seats: RoomSeat[] = init.seats.map((s) => ({
    seat: s.seat,
    team: s.team,
    player: s.player,
    name: null,
    // The lobby's bots are AI seats.
    ai: s.player === null,
    ready: s.player !== null,
    connected: s.player !== null,
  }));
  const state: RoomState = {
    ...baseState(init, seats, ctx),
    lobby: init.lobby,
    host: init.host,
    phase: "setup",
    map: null,
    options: {},
    tokens: init.tokens ?? {},
  };
  return startMatch(state, ctx);
}

/**
 * A new room, with a shared seed drawn from `ctx.random`. An invalid init throws: a lobby's is built by
 * code, and a direct one is validated by the gateway with `roomCreateSchema` before the spawn.
 */
export function createRoom(init: unknown, ctx: ActorContext): Step {
  const parsed = roomCreateSchema.parse(init);
  return "direct" in parsed ? createDirect(parsed, ctx) : createForLobby(parsed, ctx);
}
