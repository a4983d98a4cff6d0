import type { Logger } from "pino";
import type { ActorSystem, Scheduler } from "../../actors/runtime/index.ts";
import type { KvBucket, KvStore, KvWatch } from "../../fleet/index.ts";
import {
  ListingIndex,
  ListingWriter,
  feedIndex,
  tapListings,
  type IndexedKeys,
} from "../../fleet/listings/index.ts";

/**
 * A node's part of the lobby queries (docs/lobbies-query.md): the writer that puts this node's public
 * lobbies' listings in the `listings` bucket, and the index of every node's, fed by that bucket's watch.
 */
export interface NodeListings {
  readonly index: ListingIndex;
  readonly indexed: IndexedKeys;
  readonly writer: ListingWriter;
  /** Taps the system's listing tells into the writer (before any lobby runs), and starts the feed. */
  attach(system: ActorSystem): void;
  close(): void;
}

/** Opens the `listings` bucket and builds the writer and the index over it. */
export async function openListings(
  kv: KvStore,
  parts: { node: string; indexed: IndexedKeys; scheduler: Scheduler; log?: Logger | undefined },
): Promise<NodeListings> {
  const bucket: KvBucket = await kv.bucket("listings");
  const index = new ListingIndex(parts.indexed);
  const writer = new ListingWriter({
    bucket,
    node: parts.node,
    scheduler: parts.scheduler,
    failed: (code, err) => parts.log?.warn({ code, err }, "listing not written; trying again"),
  });
  let watch: KvWatch | undefined;
  return {
    index,
    indexed: parts.indexed,
    writer,
    attach(system) {
      tapListings(system, writer);
      watch ??= feedIndex(bucket, index, (key) => parts.log?.warn({ key }, "unreadable listing skipped"));
    },
    close() {
      watch?.stop();
      writer.close();
    },
  };
}
