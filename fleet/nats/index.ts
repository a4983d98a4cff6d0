/** fleet/nats/: the Bus, KV store and blob store on a NATS server (core for the bus, JetStream for the rest). */

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
export { NatsBlobStore, blobBucketName } from "./nats-blob-store.ts";
export type { NatsBlobStoreOptions } from "./nats-blob-store.ts";
