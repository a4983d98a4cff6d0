import type { ActorSystem } from "../../actors/runtime/index.ts";
import { directoryKey } from "../../actors/common/index.ts";
import type { KvBucket, KvWatch } from "../kv.ts";
import type { ListingIndex } from "./listing-index.ts";
import { decodeListingRecord, lineOfListing } from "./listing-record.ts";
import type { ListingWriter } from "./listing-writer.ts";

/**
 * Keeps a node's index current from the `listings` bucket's watch: first the latest entry of every key
 * (the replay that builds the index when the node starts), then every write and delete as it lands.
 * An entry this release cannot read is skipped (`unreadable`).
 */
export function feedIndex(
  bucket: KvBucket,
  index: ListingIndex,
  unreadable?: (key: string) => void,
): KvWatch {
  return bucket.watch({}, (entry) => {
    if (entry.operation === "DEL") {
      index.remove(entry.key);
      return;
    }
    const record = decodeListingRecord(entry.value);
    if (record === null) unreadable?.(entry.key);
    else index.upsert(record.line);
  });
}

/**
 * Sends this node's public lobbies' listings to the writer instead of to the directory actor: a lobby
 * tells `directory/lobbies` its `listing` and `unlist`, and the writer puts them in the bucket. Rooms'
 * lines still go to the directory actor (they are few, and short-lived).
 */
export function tapListings(system: ActorSystem, writer: ListingWriter): void {
  system.tapTells(directoryKey, (message) => {
    const type = (message as { type?: unknown } | null)?.type;
    if (type === "unlist") {
      const code = (message as { code?: unknown }).code;
      if (typeof code !== "string") return false;
      writer.unlist(code);
      return true;
    }
    if (type !== "listing") return false;
    const line = lineOfListing(message);
    if (line === null) return false;
    writer.list(line);
    return true;
  });
}
