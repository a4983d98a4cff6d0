/** ops/nats/: obtaining a nats-server >= 2.10 and running local servers and clusters of it. */

export {
  NatsServerMissingError,
  ensureNatsServer,
  findNatsServer,
  natsCacheDir,
  versionOf,
} from "./ensure-nats-server.ts";
export type { EnsureNatsServerOptions, NatsServerBinary } from "./ensure-nats-server.ts";
export { fetchDebianPackage } from "./debian-nats-package.ts";
export { natsConfigText } from "./nats-config.ts";
export type { NatsServerConfig, NatsServerOperator, NatsServerUser } from "./nats-config.ts";
export { freePorts } from "./free-ports.ts";
export { NatsLauncher, startNats } from "./nats-launcher.ts";
export type { NatsLocalOperator, NatsLocalUser, StartNatsOptions } from "./nats-launcher.ts";
export { NatsAuthError, natsAuthOf } from "./nats-auth.ts";
export { newNkeyUser, nkeyPublicKey } from "./nkey.ts";
export { checkCreds } from "./nats-creds.ts";
export type { NatsCredsUser } from "./nats-creds.ts";
export type { NatsAuthSettings } from "./nats-auth.ts";
export { BadBootstrapError, readyBucket, waitListening, waitNatsReady } from "./nats-readiness.ts";
export type { ReadinessOptions } from "./nats-readiness.ts";
