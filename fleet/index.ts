/** fleet/: what the node needs from the outside world — bus, KV store, actor store, clock, randomness. */

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
export { MemoryBusServer } from "./memory-bus-server.ts";
export type { MemoryBusConnectOptions } from "./memory-bus-server.ts";
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
export { MemoryKvServer } from "./memory-kv.ts";
export type { MemoryKvConnectOptions } from "./memory-kv.ts";

export { KvActorStore } from "./actor-store.ts";
export type { KvActorStoreOptions, TakeOver } from "./actor-store.ts";
export { Membership, NodeIdConflictError, defaultMembershipTiming } from "./membership.ts";
export type {
  MembershipEvents,
  MembershipOptions,
  MembershipTiming,
  NodeFacts,
  OwnerState,
  PeerView,
} from "./membership.ts";
export { Failover } from "./failover.ts";
export { Drain } from "./drain.ts";
export type { DrainOptions, DrainProgress, DrainTarget } from "./drain.ts";
export {
  Migrations,
  adoptAnswerSchema,
  adoptRequestSchema,
  adoptSubject,
  migrationHostOf,
} from "./migration.ts";
export type {
  AdoptAnswer,
  AdoptRequest,
  ClaimRead,
  MigrationHost,
  MigrationParts,
  MoveOutcome,
} from "./migration.ts";
export type { ClaimView, FailoverOptions } from "./failover.ts";
export { rendezvousOwner } from "./rendezvous.ts";
export {
  decodeNodeRecord,
  encodeNodeRecord,
  heartbeatSchema,
  isTombstone,
  tombstoneSchema,
} from "./node-record.ts";
export type { Heartbeat, NodeRecord, Tombstone } from "./node-record.ts";
export { claimSchema, decodeClaim, encodeClaim, sameIdentity } from "./claim.ts";
export type { NodeIdentity } from "./claim.ts";
export { decodeSnapshot, encodeSnapshot, reusePackedResultsFrom, snapshotSchema } from "./snapshot-codec.ts";
export { CorruptValueError } from "./corrupt-value-error.ts";
export { defaultReadBackPolicy, readBack } from "./read-back.ts";
export type { ReadBackPolicy } from "./read-back.ts";

export { realScheduler } from "./real-scheduler.ts";
export { cryptoRandom } from "./crypto-random.ts";
// The runtime already has the seeded source (it needs neither clock nor crypto); one copy, re-exported.
export { seededRandom } from "../actors/runtime/index.ts";

export {
  NatsVersionError,
  assertNatsVersion,
  compareNatsVersions,
  isSupportedNatsVersion,
  minimumNatsVersion,
  parseNatsVersion,
} from "./nats-version.ts";
export type { NatsVersion } from "./nats-version.ts";
export { NatsRefusedError, connectNats, defaultJetStreamTimeoutMs } from "./nats-connection.ts";
export type { NatsAuth, NatsConnectOptions, NatsTls } from "./nats-connection.ts";
export { NatsKvStore } from "./nats-kv.ts";
export type { NatsKvStoreOptions } from "./nats-kv.ts";
export { NatsBus } from "./nats-bus.ts";
export type { NatsBusOptions } from "./nats-bus.ts";
export { kvFilterForPrefix } from "./kv-prefix-filter.ts";
export {
  busErrorFromNats,
  isTransientNatsError,
  jsWrongLastSequence,
  kvErrorFromNats,
} from "./nats-error-map.ts";

export { FleetRouter } from "./fleet-router.ts";
export type { FleetRouterOptions } from "./fleet-router.ts";
export { NodeEndpoint, staleDisconnect } from "./node-endpoint.ts";
export type { NodeEndpointOptions } from "./node-endpoint.ts";
export {
  decodeAskResult,
  decodeDelivery,
  encodeAskResult,
  encodeDelivery,
  nodeActorSubject,
} from "./actor-wire.ts";
export type { ActorDelivery } from "./actor-wire.ts";
export { BlobAssembly, blobDigestPattern, checkDeclared, chunksOf, sha256Hex } from "./blob-upload.ts";
export { MemoryBlobStore } from "./memory-blob-store.ts";
export { NatsBlobStore, blobBucketName, type NatsBlobStoreOptions } from "./nats-blob-store.ts";
export { PushRelay, pushRelaySubject, relayedKeyPrefixes } from "./push-relay.ts";
export type { PushRelayOptions } from "./push-relay.ts";
export { chooseRoomHost, liveTargets, placeNewLobby, regionsOf, roomHostAmong } from "./placement.ts";
export type { HostCandidate, RegionUrl } from "./placement.ts";
export { busEventPublisher, eventPayload, eventSubject, eventSubjectPrefix } from "./event-publisher.ts";
export type { EventPayload } from "./event-publisher.ts";
export { FleetNode } from "./fleet-node.ts";
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
