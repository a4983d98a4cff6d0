import { defaultSnapshotShards, shardBucketNames, shardOf, snapshotBucketBase } from "../../fleet/index.ts";

/** The JetStream stream that holds `key`'s snapshot in a fleet of the default snapshot layout. */
export function snapshotStreamOf(key: string, shards = defaultSnapshotShards): string {
  return `KV_${shardBucketNames(snapshotBucketBase, shards)[shardOf(key, shards)]}`;
}
