import type {
  ActorStore,
  BlobReleaser,
  EventPublisher,
  NodeState,
  Outbox,
  Router,
  Scheduler,
} from "./ports.ts";
import type { Random } from "./types.ts";

/** How the runtime reports what it cannot handle itself; the node wires it to its logger. */
export interface RuntimeEvents {
  /** A handler threw: the actor kept its last good state and the asker got INTERNAL. */
  handlerFailed?(key: string, error: unknown): void;
  /**
   * A snapshot write (or the first one of a new actor, or the removal of a stopped one's) succeeded after
   * `elapsedMs` on the runtime's clock: the wait every acknowledgement of the batch had.
   */
  persisted?(key: string, elapsedMs: number): void;
  /** A snapshot write or read failed (fenced, unavailable, corrupt) or a spawn failed. */
  persistFailed?(key: string, error: unknown): void;
  /** The EventPublisher threw: that event is lost (events are at most once, docs/server-api.md). */
  publishFailed?(key: string, error: unknown): void;
  /** A tell to a key with no actor and no snapshot. */
  deadLetter?(key: string, message: unknown): void;
  /** A new actor was created (its first snapshot written). */
  created?(key: string): void;
  /** An actor finished (`stop`) and its snapshot was removed. */
  stopped?(key: string): void;
}

/** Options of an ActorSystem. Every dependency is passed in. */
export interface ActorSystemOptions {
  readonly store: ActorStore;
  readonly outbox: Outbox;
  readonly scheduler: Scheduler;
  readonly random: Random;
  readonly node: NodeState;
  readonly events?: RuntimeEvents;
  /**
   * Where keys that are not live here live (fleet mode). Without one every key is local: it is loaded
   * here, as in embedded mode.
   */
  readonly router?: Router;
  /** Where large blobs live; a `releaseBlob` effect deletes one (best effort). Without one it is ignored. */
  readonly blobs?: BlobReleaser;
  /** Where `event` effects go; without one they are dropped. */
  readonly publisher?: EventPublisher;
  /** Default deadline of an ask. */
  readonly askTimeoutMs?: number;
  /** How long a request's result is kept for retries (SDK retry deadline + failure timeout); 120 000. */
  readonly resultRetentionMs?: number;
  /**
   * Each actor keeps the results of at most this many sessions, those it answered most recently
   * (docs/protocol.md, "Exactly once"); 256.
   */
  readonly resultSessions?: number;
  /** Idle actors are dropped from memory after this long (their snapshot stays in the store). */
  readonly passivateAfterMs?: number;
  /** At most this many messages of one actor share one snapshot write (group commit). */
  readonly maxBatch?: number;
  /** Volatile changes are written at most this long after the first of them. */
  readonly volatileFlushMs?: number;
}
