import { z } from "zod";
import { playerIdSchema, playerRefSchema } from "../common/index.ts";
import { jsonObjectSchema, lobbyTypeIdSchema, teamCodeSchema } from "./lobby-type.ts";
import { lobbyStatusSchema } from "./matched-lobby-messages.ts";
import { matchedLobbyKeySchema } from "./matchmaking-keys.ts";
import { stepAlgorithmSchema } from "./step-algorithm.ts";

/** A queue's snapshot: its entries in arrival order and its view of its open lobbies. */

/**
 * The version of the queue state's shape (2: the queue's accept phase — matched entries and matches; 3: a
 * match's room is announced only once stored, `announced` and `node`).
 */
export const queueSchemaVersion = 3;

/** Where an entry stands: waiting for a step, waiting for filter verdicts, or being placed in a lobby. */
export const entryStageSchema = z.discriminatedUnion("status", [
  z.strictObject({ status: z.literal("waiting") }),
  z.strictObject({
    status: z.literal("filtering"),
    /** Candidates that passed the algorithm, best first. */
    candidates: z.array(matchedLobbyKeySchema).min(1),
    verdicts: z.array(z.strictObject({ lobby: matchedLobbyKeySchema, accept: z.boolean() })),
    deadline: z.number(),
  }),
  z.strictObject({ status: z.literal("placing"), lobby: matchedLobbyKeySchema, deadline: z.number() }),
  /** Taken out of the queue into a match that waits for its players to accept (SPEC §4). */
  z.strictObject({ status: z.literal("matched"), match: z.string().min(1) }),
]);

/** An entry's stage. */
export type EntryStage = z.output<typeof entryStageSchema>;

/** One request waiting in the queue (the seed's candidate data). */
export const queueEntrySchema = z.strictObject({
  id: z.string().min(1),
  /** Arrival order; ties of step are taken oldest first. */
  seq: z.number().int().min(1),
  create: z.boolean(),
  player: playerRefSchema,
  party: z.array(playerRefSchema),
  rating: z.number(),
  maxSteps: z.number().int().min(1),
  algorithm: stepAlgorithmSchema,
  filter: jsonObjectSchema,
  ready: z.boolean(),
  extra: jsonObjectSchema,
  team: teamCodeSchema.nullable(),
  pingData: z.record(z.string(), z.number()),
  settings: jsonObjectSchema,
  /** Searches done so far; the next search uses this step's range. */
  step: z.number().int().min(0),
  stage: entryStageSchema,
  /** Back from a match another player declined: searched before every other entry (SPEC §4). */
  front: z.boolean().default(false),
});

/** A queue entry. */
export type QueueEntry = z.output<typeof queueEntrySchema>;

/** A lobby as the queue sees it: its last report (version 0: spawned by this queue, not reported yet). */
export const queueLobbySchema = lobbyStatusSchema
  .omit({ type: true })
  .extend({ version: z.number().int().min(0) });

/** One lobby of the view. */
export type QueueLobby = z.output<typeof queueLobbySchema>;

/** A match of the queue's accept phase: its entries were taken out together and wait for every accept. */
export const queueMatchSchema = z.strictObject({
  id: z.string().min(1),
  acceptBy: z.number(),
  /** The matched entries, in the order they were matched (the first is the room's host). */
  entries: z.array(z.string().min(1)).min(1),
  /** Every matched player with the team it plays in, in seat order. */
  seats: z.array(z.strictObject({ player: playerIdSchema, team: teamCodeSchema })).min(1),
  accepted: z.array(playerIdSchema),
  /** Everyone accepted: the room is being opened (retried while no node can take it), then runs. */
  starting: z.boolean(),
  /**
   * The room's code once asked for. Once `announced` it is the players' active room (SPEC §4), kept until
   * the room ends; its players cannot queue again meanwhile.
   */
  room: z.string().nullable().default(null),
  /**
   * The room is stored and its players were told (`matchReady`). Until then the match is a pending room,
   * kept in the snapshot so that a crash between the spawn and the announcement resolves. (A version 2
   * match with a room was announced in the step that spawned it: `upgradeQueueState`.)
   */
  announced: z.boolean().default(false),
  /** The node the room was asked for on (a room asked for again goes there too). */
  node: z.string().nullable().default(null),
  /** The node the room was opened on (its `url`), sent again to a player who reconnects. */
  url: z.string().nullable().default(null),
  /**
   * Each player's token for the room (the room checks it at `joinRoom { code, token }`), kept so a player
   * who reconnects is sent the same one.
   */
  tokens: z.record(playerIdSchema, z.string()).default({}),
});

/** One match waiting for its players. */
export type QueueMatch = z.output<typeof queueMatchSchema>;

/** The whole queue state. */
export const queueStateSchema = z.strictObject({
  lobbyType: lobbyTypeIdSchema,
  nextEntry: z.number().int().min(1),
  /** The suffix of the next lobby's key; never reused. */
  nextLobby: z.number().int().min(1),
  /** When the step timer fires next, or null when it is not armed. */
  tickAt: z.number().nullable(),
  entries: z.array(queueEntrySchema),
  lobbies: z.array(queueLobbySchema),
  /** The suffix of the next match's id; never reused. */
  nextMatch: z.number().int().min(1).default(1),
  matches: z.array(queueMatchSchema).default([]),
});

/** A queue's state. */
export type QueueState = z.output<typeof queueStateSchema>;

/**
 * Reads a queue snapshot of a known schema version; a version 1 queue had no matches, a version 2 match
 * no pending room (the defaults).
 */
export function upgradeQueueState(state: unknown, version: number): QueueState {
  if (version !== 1 && version !== 2 && version !== queueSchemaVersion)
    throw new RangeError(`unknown queue schema version ${version}`);
  const parsed = queueStateSchema.parse(state);
  if (version === queueSchemaVersion) return parsed;
  return { ...parsed, matches: parsed.matches.map((m) => ({ ...m, announced: m.room !== null })) };
}

/**
 * Players waiting in the queue: each entry's requester and party, leaving out entries already matched
 * (they wait for their match's accepts, not for a search).
 */
export function waitingPlayers(state: QueueState): number {
  let players = 0;
  for (const entry of state.entries) if (entry.stage.status !== "matched") players += 1 + entry.party.length;
  return players;
}

/** The state with one entry changed (or removed, with `undefined`). */
export function patchEntry(state: QueueState, id: string, entry: QueueEntry | undefined): QueueState {
  const entries =
    entry === undefined
      ? state.entries.filter((e) => e.id !== id)
      : state.entries.map((e) => (e.id === id ? entry : e));
  return { ...state, entries };
}

/** The state with one lobby's view changed. */
export function patchLobby(state: QueueState, lobby: string, change: Partial<QueueLobby>): QueueState {
  return { ...state, lobbies: state.lobbies.map((l) => (l.lobby === lobby ? { ...l, ...change } : l)) };
}

/** The state with one match changed (or removed, with `undefined`). */
export function patchMatch(state: QueueState, id: string, match: QueueMatch | undefined): QueueState {
  const matches =
    match === undefined
      ? state.matches.filter((m) => m.id !== id)
      : state.matches.map((m) => (m.id === id ? match : m));
  return { ...state, matches };
}
