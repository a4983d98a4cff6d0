import { decodeClaim, type ClaimView } from "../protocol/index.ts";
import type { KvBucket } from "../kv.ts";

/** Every claim of the bucket as read now (what the router's watch would keep); throws the store's KvError. */
export async function readClaimsView(claims: KvBucket): Promise<Map<string, ClaimView>> {
  const keys = await claims.keys();
  const entries = await Promise.all(keys.map((k) => claims.get(k)));
  const view = new Map<string, ClaimView>();
  for (const entry of entries) {
    if (entry === null) continue;
    view.set(entry.key, { key: entry.key, owner: decodeClaim(entry.value), revision: entry.revision });
  }
  return view;
}
