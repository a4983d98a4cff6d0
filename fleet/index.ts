/**
 * fleet/: what the node needs from the outside world — bus, KV store, actor store, clock, randomness.
 * The ports (Bus, KvStore, their errors and key rules) stand here; their adapters in nats/ and memory/,
 * and the cluster protocol built on the ports in protocol/.
 */

export type { Bus, BusMessage, BusSubscribeOptions, BusSubscription } from "./bus.ts";
export {
  BusError,
  BusErrorCodes,
  isBusClosed,
  isBusError,
  isBusTimeout,
  isNoResponders,
} from "./bus-error.ts";
export type { BusErrorCode } from "./bus-error.ts";
export { assertQueueName, assertSubject, assertSubjectFilter, subjectMatches } from "./subject.ts";
export type { HandlerErrorSink } from "./handler-error.ts";
export { throwLater } from "./handler-error.ts";

export type {
  KvBucket,
  KvBucketOptions,
  KvEntry,
  KvOperation,
  KvStore,
  KvWatch,
  KvWatchOptions,
} from "./kv.ts";
export {
  KvError,
  KvErrorCodes,
  isExists,
  isKvError,
  isTimeout,
  isUnavailable,
  isWrongRevision,
} from "./kv-error.ts";
export type { KvErrorCode } from "./kv-error.ts";
export { assertBucketName, assertKvKey, assertKvPrefix, assertRevision } from "./kv-key.ts";
export { CorruptValueError } from "./corrupt-value-error.ts";
export { ShardedKvBucket, maxShards, shardBucketNames, shardOf } from "./sharded-kv.ts";
export {
  SnapshotLayoutError,
  defaultSnapshotShards,
  fleetSnapshotShards,
  layoutKey,
  openSnapshotBucket,
  recordedSnapshotShards,
  snapshotBucketBase,
} from "./snapshot-layout.ts";
export { BlobAssembly, blobDigestPattern, checkDeclared, chunksOf, sha256Hex } from "./blob-upload.ts";

export { realScheduler } from "./real-scheduler.ts";
export { cryptoRandom } from "./crypto-random.ts";
export { orphanKind, orphanTombstone } from "./protocol/orphan-tombstone.ts";
// The runtime already has the seeded source (it needs neither clock nor crypto); one copy, re-exported.
export { seededRandom } from "../actors/runtime/index.ts";

export { MemoryBlobStore, MemoryBusServer, MemoryKvServer } from "./memory/index.ts";
export type { MemoryBusConnectOptions, MemoryKvConnectOptions } from "./memory/index.ts";

export {
  NatsBlobStore,
  NatsBus,
  NatsKvStore,
  NatsRefusedError,
  NatsVersionError,
  assertNatsVersion,
  blobBucketName,
  busErrorFromNats,
  compareNatsVersions,
  connectNats,
  defaultJetStreamTimeoutMs,
  isSupportedNatsVersion,
  isTransientNatsError,
  jsWrongLastSequence,
  kvErrorFromNats,
  kvFilterForPrefix,
  minimumNatsVersion,
  parseNatsVersion,
} from "./nats/index.ts";
export type {
  NatsAuth,
  NatsBlobStoreOptions,
  NatsBusOptions,
  NatsConnectOptions,
  NatsKvStoreOptions,
  NatsTls,
  NatsVersion,
} from "./nats/index.ts";

export {
  Drain,
  Failover,
  FleetRouter,
  KvActorStore,
  Membership,
  Migrations,
  NodeEndpoint,
  NodeIdConflictError,
  PushRelay,
  PushRoutes,
  adoptAnswerSchema,
  adoptRequestSchema,
  adoptSubject,
  busEventPublisher,
  claimSchema,
  decodeAskResult,
  decodeClaim,
  decodeDelivery,
  decodeNodeRecord,
  decodeSnapshot,
  isApartKvKey,
  defaultMembershipTiming,
  defaultReadBackPolicy,
  encodeAskResult,
  encodeClaim,
  encodeDelivery,
  encodeNodeRecord,
  encodeSnapshot,
  eventPayload,
  eventSubject,
  eventSubjectPrefix,
  heartbeatSchema,
  isTombstone,
  migrationHostOf,
  nodeActorSubject,
  nodeHeardSubject,
  nodePushSubject,
  pushRelaySubject,
  readBack,
  relayedKeyPrefixes,
  rendezvousOwner,
  reusePackedResultsFrom,
  sameIdentity,
  snapshotSchema,
  staleDisconnect,
  tombstoneSchema,
} from "./protocol/index.ts";
export type {
  ActorDelivery,
  AdoptAnswer,
  AdoptRequest,
  ClaimRead,
  ClaimView,
  DrainOptions,
  DrainProgress,
  DrainTarget,
  EventPayload,
  FailoverOptions,
  FleetRouterOptions,
  Heartbeat,
  KvActorStoreOptions,
  MembershipEvents,
  MembershipOptions,
  MembershipTiming,
  MigrationHost,
  MigrationParts,
  MoveOutcome,
  NodeEndpointOptions,
  NodeFacts,
  NodeIdentity,
  NodeRecord,
  OwnerState,
  PeerView,
  PushRelayOptions,
  ReadBackPolicy,
  TakeOver,
  Tombstone,
} from "./protocol/index.ts";

export {
  chooseRoomHost,
  heldBy,
  liveTargets,
  peerLoads,
  placeNewLobby,
  regionsOf,
  roomHostAmong,
  withRoomFor,
} from "./placement.ts";
export type { HostCandidate, PeerLoad, RegionUrl } from "./placement.ts";
export { ownerReachable } from "./owner-reachable.ts";
export { FleetNode } from "./fleet-node.ts";
export { fleetBucketNames, fleetNodeFrom, fleetNodePorts } from "./fleet-node-from.ts";
export type { FleetWorld } from "./fleet-node-from.ts";
export type {
  FleetBuckets,
  FleetEvents,
  FleetLog,
  FleetNodeHooks,
  FleetNodePorts,
  FleetNodeSettings,
} from "./fleet-node-ports.ts";
export type { DrainAnswer } from "./fleet-node-drain.ts";
export type { FailoverRecord } from "./takeover-records.ts";
