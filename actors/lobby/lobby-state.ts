import { z } from "zod";
import { codeSchema, modeSchema, playerIdSchema, playerNameSchema, seatSchema } from "../common/index.ts";
import { lobbyDataSchema, memberDataSchema } from "./lobby-data-schema.ts";

/** The lobby's snapshot: plain data only, so it survives msgpack and a read by another node. */

/**
 * The version of the lobby state's shape; bump it with an upgrade path when the shape changes (3: the
 * party search its host queued it in).
 */
export const lobbySchemaVersion = 3;

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
  /** The member's own data (every member sees it); kept while it is away within its grace. */
  data: memberDataSchema.default({}),
  /** ctx.now of the member's latest chat lines within the chat window: its chat rate, never the text. */
  chatAt: z.array(z.number()).default([]),
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

/** Who may come in: the seats, the lock and the password. */
export const doorSchema = z.strictObject({
  /** At most the node's `maxMembers`; never below the members there are when it was set. */
  maxMembers: z.number().int().min(1),
  /** No joins while locked; the members stay. */
  locked: z.boolean(),
  /** The password's hash (the clear password never reaches the lobby); null when there is none. */
  passwordHash: z.string().max(256).nullable(),
});

/** A lobby's door. */
export type Door = z.output<typeof doorSchema>;

/** A party search, as a lobby shows it. */
export const partySearchSchema = z.strictObject({
  lobbyType: z.string().min(1).max(64),
  entry: z.string().min(1).max(64).nullable(),
});

/** The whole lobby state. */
export const lobbyStateSchema = z.strictObject({
  code: codeSchema,
  public: z.boolean(),
  /** The lobby's data; what was `metadata` before is its public part. */
  data: lobbyDataSchema,
  /** Grows by one with every change of the lobby (of its data or anything else); frames carry it. */
  version: z.number().int().min(0),
  /** ctx.now when the lobby was made. */
  createdAt: z.number(),
  door: doorSchema,
  /** Players the host (or the studio) banned: they cannot join this lobby again while it lives. */
  banned: z.array(playerIdSchema),
  members: z.array(memberSchema),
  /** A member's player id; null only once the last member is gone. */
  host: playerIdSchema.nullable(),
  nextMemberId: z.number().int().min(1),
  room: lobbyRoomSchema.nullable(),
  /**
   * The queue search its host queued the lobby in as one party (`findLobby { party: true }`), as the
   * host's registry reports it: the lobby type and the queue's entry. Null when the lobby is not searching.
   */
  searching: partySearchSchema.nullable(),
});

/** A lobby's state. */
export type LobbyState = z.output<typeof lobbyStateSchema>;

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
