import type { ErrorCode } from "./error-codes.ts";
import type {
  AskResult,
  EventStamp,
  PushFrame,
  RequestId,
  RoomHost,
  StudioEventName,
  TimerKind,
} from "./types.ts";

/**
 * The runtime's ports: the interfaces it needs from the outside world, owned here and implemented in
 * fleet/ (in-process for embedded mode, NATS for the fleet) and gateway/. Nothing here does I/O.
 */

/** A timer armed in an actor, as written in its snapshot. */
export interface SnapshotTimer {
  readonly name: string;
  readonly kind: TimerKind;
  /** game: absolute wall-clock deadline (ms). */
  readonly at?: number;
  /** grace: milliseconds left when the snapshot was written. */
  readonly remainingMs?: number;
}

/** A request answered by the actor, kept so a retry is answered with the first result. */
export interface SnapshotResult {
  readonly session: string;
  readonly id: number;
  /** Wall-clock ms when it was answered; results are kept for a time, within bounds (ResultTable). */
  readonly at: number;
  readonly ok: boolean;
  readonly value?: unknown;
  readonly code?: ErrorCode;
  readonly message?: string;
}

/**
 * A spawn that a written change caused and whose actor was not yet known to be stored when the change was
 * written. A restore creates it again if it is missing (see MailboxRunner, "Spawns before what they
 * cause"), so a stored actor never names a child that was never created.
 */
export interface SnapshotSpawn {
  readonly key: string;
  readonly init: unknown;
  /** The node it was placed on, when the spawn named one. */
  readonly node?: string;
  /** The creator is told `spawned` once it is stored (the spawn effect's `confirm`). */
  readonly confirm?: true;
  /** A key that already has a snapshot counts as this spawn's (the spawn effect's `reask`). */
  readonly reask?: true;
}

/** An actor's last acknowledged state: what a snapshot write carries. Plain data. */
export interface Snapshot {
  /**
   * Snapshot format version (of this envelope): 2 when it names answers stored apart (`apart`), which a
   * release that reads only format 1 refuses rather than restore without them; 1 otherwise.
   */
  readonly format: 1 | 2;
  readonly kind: string;
  /** The kind's schema version of `state`. */
  readonly schemaVersion: number;
  readonly key: string;
  /** The owner's epoch when this was written. */
  readonly epoch: number;
  /** The last sequence number stamped on a frame about this key. */
  readonly seq: number;
  /** A unique id of this write, for reading back after an unknown outcome. */
  readonly writeId: string;
  readonly state: unknown;
  readonly timers: readonly SnapshotTimer[];
  /**
   * The answers kept for retries: the least recently answered session first, each session's oldest
   * first (earlier releases wrote them in answer order, which reads back the same; see ResultTable).
   */
  readonly results: readonly SnapshotResult[];
  /**
   * The records of settled answers stored apart from the snapshot (ActorStore `writeApart`), oldest
   * first; left out when there are none. A restore reads them before `results`, which win.
   */
  readonly apart?: readonly string[];
  /** Spawns in flight when this was written (see SnapshotSpawn); left out when there are none. */
  readonly spawning?: readonly SnapshotSpawn[];
}

/** A snapshot as read, with the store revision it was read at. */
export interface StoredSnapshot {
  readonly snapshot: Snapshot;
  readonly revision: number;
}

/** The process a key's claim names: node id and the incarnation that took it. */
export interface ClaimOwner {
  readonly node: string;
  readonly incarnation: string;
  /** True when this is the store's own process (same node id and incarnation). */
  readonly mine: boolean;
}

/** A snapshot as read, with the claim it is paired with: its revision is the epoch, its owner the node. */
export interface StoredActor extends StoredSnapshot {
  readonly epoch: number;
  readonly owner: ClaimOwner;
}

/** Why a snapshot write did not succeed (FLEET-PROTOCOL, "What a KV write's outcome means"). */
export type PersistFailure =
  /** Another owner with a newer epoch holds the key: stop the actor, acknowledge nothing. */
  | "fenced"
  /** The store cannot take writes now: acknowledge nothing, retry later. */
  | "unavailable"
  /** The key already exists (on create). */
  | "exists";

/** Thrown by an ActorStore when a write does not succeed. */
export class PersistError extends Error {
  /** On `exists`: the claim that won, when the store read it. */
  readonly owner?: ClaimOwner;

  constructor(
    readonly failure: PersistFailure,
    message: string,
    options?: { cause?: unknown; owner?: ClaimOwner },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PersistError";
    if (options?.owner) this.owner = options.owner;
  }
}

/**
 * Where actors are claimed and their snapshots kept. `claim` + `write` + `read` are enough for one node;
 * the fleet's implementation also settles timeouts by reading back and fences older epochs.
 */
export interface ActorStore {
  /** Claims a new key for this node and writes its first snapshot; returns the epoch and revision. Throws `exists`. */
  create(key: string, snapshot: (epoch: number) => Snapshot): Promise<{ epoch: number; revision: number }>;
  /**
   * Reads a key's snapshot with the claim it is paired with; null when there is no snapshot. The runtime
   * restores it only when `owner.mine`; otherwise the key lives elsewhere.
   */
  read(key: string): Promise<StoredActor | null>;
  /** Compare-and-set write of the next snapshot; returns the new revision. Throws PersistError. */
  write(key: string, snapshot: Snapshot, revision: number): Promise<number>;
  /**
   * Deletes a finished actor's snapshot and releases its claim. `epoch`, when given, is the claim's
   * revision as the actor holds it: the claim is then deleted at it without reading it first.
   */
  remove(key: string, revision: number, epoch?: number): Promise<void>;
  /**
   * Stores the settled answers `results` of `key` apart from its snapshot, under `id` (a new id per
   * record, never written twice with other answers). Resolves once durable; throws PersistError. A store
   * without it keeps every answer in the snapshot.
   */
  writeApart?(key: string, id: string, results: readonly SnapshotResult[]): Promise<void>;
  /** The answers stored apart under `id`; null when there is no such record. Throws PersistError. */
  readApart?(key: string, id: string): Promise<readonly SnapshotResult[] | null>;
  /** Deletes a record of answers stored apart; a missing one is no error. Throws PersistError. */
  removeApart?(key: string, id: string): Promise<void>;
}

/** Carries frames to players' sessions, wherever they are connected. */
export interface Outbox {
  push(players: readonly string[], frame: StampedFrame): void;
}

/** An event as it leaves the runtime: its name, the actor's data and the runtime's stamp. */
export type StudioEvent = EventStamp & {
  readonly name: StudioEventName;
  readonly data: Readonly<Record<string, unknown>>;
};

/**
 * Where events go (docs/server-api.md): NATS subjects in a fleet, the in-process bus on an embedded node.
 * Called after the change that made the event is written; best effort, never throws.
 */
export interface EventPublisher {
  publish(event: StudioEvent): void;
}

/** A frame about a key, stamped by the runtime. */
export type StampedFrame = PushFrame & { readonly key: string; readonly epoch: number; readonly seq: number };

/** Clock and timers. The real one uses the wall clock and setTimeout; tests use a manual one. */
export interface Scheduler {
  /** Wall-clock ms. */
  now(): number;
  /** Calls `fn` at wall-clock `at` (or at once if past); returns a cancel function. */
  at(at: number, fn: () => void): () => void;
}

/** Node-level facts an actor may see (room capacity, draining) and the lease check of the fleet. */
export interface NodeState {
  canOpenRoom(): boolean;
  draining(): boolean;
  /** The least-loaded node that can open a room now (this one on an embedded node); undefined when none. */
  roomHost?(): RoomHost | undefined;
  /** False when this node must not act (its lease is stale); the runtime then refuses with UNAVAILABLE. */
  mayAct(): boolean;
  /**
   * When `mayAct` is false: resolves true once the lease is fresh again, false when this node was declared
   * dead meanwhile. Without it a lapsed lease counts as lost.
   */
  leaseSettled?(): Promise<boolean>;
}

/** Where a key lives, as a Router sees it. */
export type Location =
  | { readonly kind: "local" }
  | { readonly kind: "remote"; readonly node: string }
  /** Owned by a node that went silent, not yet taken over: retry later. */
  | { readonly kind: "unavailable"; readonly retryAfterMs: number }
  | { readonly kind: "unknown" };

/** Where a key's owner is, as a gateway needs it for a redirect. */
export type OwnerLocation =
  /** This node, or nobody yet. */
  | { readonly kind: "here" }
  | { readonly kind: "elsewhere"; readonly url: string }
  /** Its owner went silent and no survivor has taken it over yet: ask again in a moment. */
  | { readonly kind: "waiting"; readonly retryAfterMs: number };

/** Where a new lobby goes, as a gateway needs it for a create. */
export type NewLobbyPlace =
  /** This node. */
  | { readonly kind: "here" }
  /** A peer makes it: this node drains, or it is at its lobby limit and the peer is not (`full`). */
  | { readonly kind: "elsewhere"; readonly url: string; readonly reason: "drain" | "full" }
  /** Every live node is at its lobby limit: the create is refused `FULL`. */
  | { readonly kind: "full"; readonly message: string };

/** A message carried to another node for one of its actors. */
export interface Forwarded {
  readonly message: unknown;
  readonly request?: RequestId;
}

/**
 * Where keys that are not live here are handled. Embedded mode has none (every key is local); the
 * fleet's implementation reads the `claims` bucket (cached, kept current by a watch) and carries
 * messages over the bus to the owner's endpoint.
 */
export interface Router {
  /** This node's id: a key whose claim names it (an older incarnation) is not forwarded to itself. */
  readonly node: string;
  locate(key: string): Promise<Location>;
  /** Drops what is cached about `key` (after a `MOVED` answer), so the next locate reads the claim. */
  invalidate(key: string): void;
  /** Asks `node` to deliver to its actor `key`; resolves with its answer. Never rejects. */
  forward(node: string, key: string, envelope: Forwarded, opts: { timeoutMs: number }): Promise<AskResult>;
  /** Sends a message to `node`'s actor `key` without waiting; best effort. */
  forwardTell(node: string, key: string, message: unknown): void;
  /**
   * Asks `node` to create the actor `key` with `init` and claim it (a room placed on the least-loaded
   * node). Resolves ok once created there; a refusal (the key is taken, the node cannot open a room, it
   * cannot be reached) is not ok. Never rejects. Without it every spawn is local.
   */
  spawnAt?(node: string, key: string, init: unknown, opts: { timeoutMs: number }): Promise<AskResult>;
}

/** A stored blob as a room keeps it: never the bytes, only what names and checks them. */
export interface BlobRef {
  /** The store's id of the blob. */
  readonly id: string;
  /** Its size in bytes. */
  readonly size: number;
  /** Its SHA-256, lowercase hex (64 characters). */
  readonly digest: string;
}

/** Why a blob operation was refused: too large, a chunk out of order, a digest that does not match, no such blob. */
export type BlobFailure = "TOO_LARGE" | "ORDER" | "DIGEST" | "NOT_FOUND";

/** Thrown by a BlobStore when an operation is refused; the upload is then as it was (a `DIGEST` one is discarded). */
export class BlobError extends Error {
  constructor(
    readonly failure: BlobFailure,
    message: string,
  ) {
    super(message);
    this.name = "BlobError";
  }
}

/** What a BlobStore's sweep deletes (see `BlobStore.sweep`). */
export interface BlobSweep {
  readonly olderThanMs: number;
  /** False when the holder (an actor key) no longer exists. */
  readonly inUse: (holder: string) => Promise<boolean>;
}

/** The one thing the runtime asks of a BlobStore: delete a blob its actor no longer needs, best effort. */
export interface BlobReleaser {
  release(id: string): void;
}

/**
 * Where large blobs (a room's document, docs/rooms.md "Large blobs") live: in memory on an embedded
 * node, in a JetStream object store in a fleet. An upload is begun with its declared size and digest,
 * fed chunks in order, and completed (checked against both); only a completed blob can be read.
 */
export interface BlobStore extends BlobReleaser {
  /** The largest blob it takes, in bytes. */
  readonly maxBytes: number;
  /** Starts an upload; returns the new blob's id. Throws BlobError `TOO_LARGE` when `size` exceeds `maxBytes`. */
  begin(size: number, digest: string): Promise<string>;
  /** Adds chunk `index` (0, 1, 2, … in order). Throws `ORDER`, `TOO_LARGE` (both change nothing), `NOT_FOUND`. */
  put(id: string, index: number, bytes: Uint8Array): Promise<void>;
  /** Completes an upload: its size and SHA-256 must be the declared ones (`DIGEST`, upload discarded). */
  complete(id: string): Promise<BlobRef>;
  /** A completed blob's size and digest; null when there is none (unknown, unfinished or deleted). */
  stat(id: string): Promise<BlobRef | null>;
  /** A completed blob's bytes, in chunks of at most `chunkBytes`, in order. Throws `NOT_FOUND`. */
  read(id: string, chunkBytes: number): AsyncIterable<Uint8Array>;
  /** Discards an upload or deletes a blob; an unknown id is a no-op. */
  delete(id: string): Promise<void>;
  /**
   * Records the key of the actor that holds a completed blob (the room it was given to), for `sweep`.
   * An unknown id is a no-op.
   */
  hold(id: string, holder: string): Promise<void>;
  /**
   * Deletes orphans: completed blobs older than `olderThanMs` (since their completion or `hold`) that no
   * actor holds, or whose holder `inUse` says is gone; and uploads this store began more than
   * `olderThanMs` ago and never completed. Returns the ids deleted. `inUse` should answer true when in
   * doubt: a blob is deleted only on a clear no.
   */
  sweep(opts: BlobSweep): Promise<string[]>;
  /** Closes the store (an embedded store drops everything). */
  close(): Promise<void>;
}
