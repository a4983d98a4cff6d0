import { z } from "zod";
import type { ActorContext, Transition } from "../runtime/index.ts";
import type { LobbyType } from "./lobby-type.ts";
import { matchedLobbyOptionsSchema } from "./matched-lobby-options.ts";
import type { QueueState } from "./queue-state.ts";

/** How queues behave on this node; every field has a default. */
export const queueOptionsSchema = z.strictObject({
  /** The seed's step: every entry is searched once per step (about 2 s). */
  stepSeconds: z.number().min(0.1).max(60).default(2),
  /** A filter verdict not in by then counts as a reject. */
  filterTimeoutMs: z.number().int().min(10).max(60_000).default(1000),
  /** A lobby that has not answered a join by then is taken as gone; the entry searches again. */
  placeTimeoutMs: z.number().int().min(100).max(60_000).default(5000),
  /** The region of a lobby created for a request without pingData. */
  defaultRegion: z.string().min(1).max(64).default("default"),
  /** The room of an accepted match: its code, as a matched lobby draws it, and the retry of a full node. */
  ...matchedLobbyOptionsSchema.shape,
  /**
   * How long a match's room may take to be confirmed stored before it is asked for again: past a
   * remote spawn's ask timeout (5 s), so only a confirmation lost with a crashed node is asked again.
   */
  roomConfirmMs: z.number().int().min(1000).max(600_000).default(15_000),
  /** The length of each player's token in `matchReady` (letters and digits from the seeded source). */
  tokenLength: z.number().int().min(16).max(64).default(24),
});

/** Queue options with every field present. */
export type QueueOptions = z.output<typeof queueOptionsSchema>;

/** Queue options as a caller may write them. */
export type QueueOptionsInput = z.input<typeof queueOptionsSchema>;

/** What a queue handler reads besides its state and message. */
export interface QueueEnv {
  readonly lobbyType: LobbyType;
  readonly options: QueueOptions;
  readonly ctx: ActorContext;
}

/** One queue transition. */
export type QueueStep = Transition<QueueState>;
