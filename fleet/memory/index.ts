/** fleet/memory/: the Bus, KV store and blob store in one process, for embedded mode and tests. */

export { MemoryBusServer } from "./memory-bus-server.ts";
export type { MemoryBusConnectOptions } from "./memory-bus-server.ts";
export { MemoryKvServer } from "./memory-kv.ts";
export type { MemoryKvConnectOptions } from "./memory-kv.ts";
// One bucket's keys and revisions; the simulation's KV keeps its state in these to behave as the real one.
export { MemoryBucketData } from "./memory-kv-bucket.ts";
export type { BucketListener } from "./memory-kv-bucket.ts";
export { MemoryBlobStore } from "./memory-blob-store.ts";
