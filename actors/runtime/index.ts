/** The actor runtime: mailbox, refs (ask/tell), supervision, timers, snapshots, passivation. */
export { ActorSystem, type ActorSystemOptions, type Endpoint, type RuntimeEvents } from "./actor-system.ts";
export { ErrorCodes, errorCodeList, isRetryable, type ErrorCode } from "./error-codes.ts";
export { createHarness, mutableNode, type Delivered, type Harness, type MutableNode } from "./harness.ts";
export { ManualScheduler, settle } from "./manual-scheduler.ts";
export { MemoryActorStore, type MemoryStoreIdentity } from "./memory-actor-store.ts";
export {
  PersistError,
  type ActorStore,
  type ClaimOwner,
  type Forwarded,
  type Location,
  type NewLobbyPlace,
  type OwnerLocation,
  type Router,
  type StoredActor,
  type NodeState,
  type Outbox,
  type EventPublisher,
  type StudioEvent,
  type PersistFailure,
  type Scheduler,
  type Snapshot,
  type SnapshotResult,
  type SnapshotSpawn,
  type SnapshotTimer,
  type StampedFrame,
  type StoredSnapshot,
  type BlobFailure,
  type BlobRef,
  type BlobReleaser,
  type BlobStore,
  type BlobSweep,
  BlobError,
} from "./ports.ts";
export { seededRandom } from "./seeded-random.ts";
export { defaultResultSessions, maxResultsPerSession } from "./request-results.ts";
export { resultChunksOf } from "./result-chunks.ts";
export { armGrace, cancelGrace, graceTimerName, graceTimerPlayer } from "./grace-timers.ts";
export { andThen, pushTo, refuse, reply, stops, withEffects } from "./transition.ts";
export type {
  ActorContext,
  ActorKind,
  AskResult,
  Effect,
  EventStamp,
  NodeView,
  PushFrame,
  Random,
  RequestId,
  Restored,
  RoomHost,
  SpawnFailed,
  Spawned,
  StudioEventName,
  TimerFired,
  TimerKind,
  Transition,
} from "./types.ts";
export { kindMessageParser, restoredSchema, timerFiredSchema } from "./system-messages.ts";
