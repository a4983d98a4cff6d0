import { z } from "zod";
import { playerRefSchema } from "../lobby/index.ts";
import { jsonObjectSchema, lobbyTypeIdSchema, teamCodeSchema } from "./lobby-type.ts";
import { lobbyStatusSchema } from "./matched-lobby-messages.ts";
import { matchedLobbyKeySchema } from "./matchmaking-keys.ts";
import { stepAlgorithmSchema } from "./step-algorithm.ts";

/** A queue's snapshot: its entries in arrival order and its view of its open lobbies. */

/** The version of the queue state's shape. */
export const queueSchemaVersion = 1;

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
});

/** A queue entry. */
export type QueueEntry = z.output<typeof queueEntrySchema>;

/** A lobby as the queue sees it: its last report (version 0: spawned by this queue, not reported yet). */
export const queueLobbySchema = lobbyStatusSchema
  .omit({ type: true })
  .extend({ version: z.number().int().min(0) });

/** One lobby of the view. */
export type QueueLobby = z.output<typeof queueLobbySchema>;

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
});

/** A queue's state. */
export type QueueState = z.output<typeof queueStateSchema>;

/** Reads a queue snapshot of a known schema version. */
export function upgradeQueueState(state: unknown, version: number): QueueState {
  if (version !== queueSchemaVersion) throw new RangeError(`unknown queue schema version ${version}`);
  return queueStateSchema.parse(state);
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
