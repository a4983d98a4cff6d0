/**
 * fleet/protocol/: the cluster protocol on top of the Bus and KV ports — membership, claims, failover,
 * migration, drain, routing between nodes, the KV actor store and the records they keep.
 */

export { KvActorStore } from "./actor-store.ts";
export type { KvActorStoreOptions, TakeOver } from "./actor-store.ts";
export { Membership } from "./membership.ts";
export type { MembershipEvents, MembershipOptions, NodeFacts } from "./membership.ts";
export { defaultMembershipTiming } from "./membership-timing.ts";
export type { MembershipTiming } from "./membership-timing.ts";
export { NodeIdConflictError } from "./node-id-conflict-error.ts";
export type { OwnerState, PeerView } from "./peer-table.ts";
export { Failover } from "./failover.ts";
export type { ClaimView, FailoverOptions } from "./failover.ts";
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
export { rendezvousOwner } from "./rendezvous.ts";
export {
  decodeNodeRecord,
  encodeNodeRecord,
  heartbeatLimitsOf,
  heartbeatSchema,
  isTombstone,
  nodeLimitsSchema,
  tombstoneSchema,
} from "./node-record.ts";
export type { Heartbeat, NodeLimits, NodeRecord, Tombstone } from "./node-record.ts";
export { claimSchema, decodeClaim, encodeClaim, sameIdentity } from "./claim.ts";
export type { NodeIdentity } from "./claim.ts";
export {
  decodeSnapshot,
  encodeSnapshot,
  isApartKvKey,
  reusePackedResultsFrom,
  snapshotSchema,
} from "./snapshot-codec.ts";
export { defaultReadBackPolicy, readBack } from "./read-back.ts";
export type { ReadBackPolicy } from "./read-back.ts";
export { FleetRouter } from "./fleet-router.ts";
export { defaultClaimsCacheSize } from "./claims-cache.ts";
export { OwnClaims } from "./own-claims.ts";
export { ClaimIndex, claimIndexBucketName } from "./claim-index.ts";
export type { IndexedClaim } from "./claim-index.ts";
export { claimWritesTap } from "./claim-writes-tap.ts";
export { DeadNodeKeys, unreadRevision } from "./dead-node-keys.ts";
export type { DeadNodeKeysOptions } from "./dead-node-keys.ts";
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
export { PushRelay, directPushTimeoutMs, pushRelaySubject, relayedKeyPrefixes } from "./push-relay.ts";
export { PushRoutes, nodeHeardSubject, nodePushSubject, pushRoutesLimit } from "./push-routes.ts";
export type { PushRelayOptions } from "./push-relay.ts";
export { busEventPublisher, eventPayload, eventSubject, eventSubjectPrefix } from "./event-publisher.ts";
export type { EventPayload } from "./event-publisher.ts";
