import { z } from "zod";
import { codeSchema, modeSchema, playerIdSchema, playerNameSchema, seatSchema } from "../common/index.ts";
import { metadataSchema } from "./lobby-metadata.ts";

/** The lobby's snapshot: plain data only, so it survives msgpack and a read by another node. */

/** The version of the lobby state's shape; bump it with an upgrade path when the shape changes. */
export const lobbySchemaVersion = 1;

/** One member, in join order. */
export const memberSchema = z.strictObject({
  player: playerIdSchema,
  /** 1, 2, 3…: a seat id in every room this lobby starts, so it is never reused. */
  memberId: z.number().int().min(1),
  name: playerNameSchema,
  ready: z.boolean(),
  /** The team of the last room started; null before the first. */
  team: z.number().int().min(0).nullable(),
  connected: z.boolean(),
  inRoom: z.boolean(),
});

/** A lobby member. */
export type Member = z.output<typeof memberSchema>;

/** The room a lobby is playing. */
export const lobbyRoomSchema = z.strictObject({
  code: codeSchema,
  mode: modeSchema,
  seats: z.array(seatSchema),
  /** The room reported its end; the `return` timer is armed. */
  ended: z.boolean(),
});

/** The room a lobby is playing, as the lobby remembers it. */
export type LobbyRoom = z.output<typeof lobbyRoomSchema>;

/** The whole lobby state. */
export const lobbyStateSchema = z.strictObject({
  code: codeSchema,
  public: z.boolean(),
  metadata: metadataSchema.nullable(),
  members: z.array(memberSchema),
  /** A member's player id; null only once the last member is gone. */
  host: playerIdSchema.nullable(),
  nextMemberId: z.number().int().min(1),
  room: lobbyRoomSchema.nullable(),
});

/** A lobby's state. */
export type LobbyState = z.output<typeof lobbyStateSchema>;

/** Reads a lobby snapshot of a known schema version; throws on anything else (the runtime refuses it). */
export function upgradeLobbyState(state: unknown, version: number): LobbyState {
  if (version !== lobbySchemaVersion) throw new RangeError(`unknown lobby schema version ${version}`);
  return lobbyStateSchema.parse(state);
}

/** True while the lobby has a room, running or ended and waiting for the return. */
export function isPlaying(state: LobbyState): boolean {
  return state.room !== null;
}

/** True while the room runs (started and not yet reported ended). */
export function roomRunning(state: LobbyState): boolean {
  return state.room !== null && !state.room.ended;
}

/** The member with this player id. */
export function findMember(state: LobbyState, player: string): Member | undefined {
  return state.members.find((m) => m.player === player);
}
