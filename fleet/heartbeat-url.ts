import type { KvBucket } from "./kv.ts";
import { decodeNodeRecord, isTombstone } from "./protocol/index.ts";

/** The public URL in `node`'s heartbeat record, read now; null when it has none (or is a tombstone). */
export async function heartbeatUrl(nodes: KvBucket, node: string): Promise<string | null> {
  try {
    const entry = await nodes.get(node);
    if (entry === null) return null;
    const record = decodeNodeRecord(entry.value);
    return isTombstone(record) || record.url === "" ? null : record.url;
  } catch {
    return null;
  }
}
