import { type NodeIdentity, decodeClaim } from "./claim.ts";
import type { ClaimIndex } from "./claim-index.ts";
import type { ClaimView } from "./failover.ts";
import { unescapeKvKey } from "../escaped-keys.ts";
import type { KvBucket, KvEntry } from "../kv.ts";
import type { OwnClaims } from "./own-claims.ts";

/**
 * The `claims` bucket as this node's store and router use it (keys as stored, escaped), noting on the
 * way what the node's own writes and reads say about its claims: OwnClaims learns each claim this
 * process takes, reads or deletes, and the ClaimIndex gets an entry for each claim write of ours, sent
 * beside it (both in flight at once: no round trip is added, and a process paused after sending its
 * claim has sent its entry too).
 * The claims themselves are written as before: a node of an earlier release reads them unchanged.
 *
 * A claim encoded before this node was fenced may be written after (a create tried again once its first
 * outcome was unknown): it names the incarnation this process was, dead now. Its entry is written again
 * once the claim has landed — a listing may have read the key unclaimed meanwhile and dropped the first —
 * and the claim goes to `late`: nobody else may ever hear of it (the survivors' and this node's own
 * listings may all have run before it landed).
 */
export function claimWritesTap(
  bucket: KvBucket,
  own: OwnClaims,
  index: ClaimIndex | undefined,
  late?: (claim: ClaimView) => void,
): KvBucket {
  /**
   * The owner a claim write names when it is this node, of any incarnation: a claim encoded before a
   * fence and written after it (a create tried again once its first outcome was unknown) names the
   * incarnation this process was, and only an entry under that name lets the survivors, or this node's
   * own listing when it rejoins, find the key.
   */
  const mine = (value: Uint8Array): NodeIdentity | null => {
    const owner = ownerOf(value);
    return owner !== null && owner.node === own.me().node ? owner : null;
  };
  /** Writes the claim and, when it names this node, its index entry at the same time. */
  const claimWrite = async (
    key: string,
    value: Uint8Array,
    write: () => Promise<number>,
  ): Promise<number> => {
    const owner = mine(value);
    const entry = owner === null ? undefined : index?.record(owner, unescapeKvKey(key));
    const [revision] = await Promise.all([write(), entry]);
    own.saw(unescapeKvKey(key), ownerOf(value), revision);
    if (owner !== null && !own.isMe(owner)) {
      await index?.record(owner, unescapeKvKey(key));
      late?.({ key: unescapeKvKey(key), owner, revision });
    }
    return revision;
  };
  return {
    name: bucket.name,
    get: async (key) => {
      const entry = await bucket.get(key);
      if (entry !== null) seen(own, entry);
      return entry;
    },
    create: (key, value) => claimWrite(key, value, () => bucket.create(key, value)),
    update: (key, value, expected) => claimWrite(key, value, () => bucket.update(key, value, expected)),
    put: (key, value) => claimWrite(key, value, () => bucket.put(key, value)),
    delete: async (key, opts) => {
      const actorKey = unescapeKvKey(key);
      const epoch = own.epochOf(actorKey);
      await bucket.delete(key, opts);
      if (epoch === undefined || (opts?.expectedRevision !== undefined && opts.expectedRevision !== epoch))
        return;
      own.dropped(actorKey);
      index?.remove(own.me(), actorKey);
    },
    keys: (prefix) => bucket.keys(prefix),
    watch: (opts, onEntry) =>
      bucket.watch(opts, (entry) => {
        seen(own, entry);
        onEntry(entry);
      }),
  };
}

/** A claim read or watched: OwnClaims keeps or drops the key by whom it names. */
function seen(own: OwnClaims, entry: KvEntry): void {
  if (entry.operation === "DEL") return;
  own.saw(unescapeKvKey(entry.key), ownerOf(entry.value), entry.revision);
}

function ownerOf(value: Uint8Array): NodeIdentity | null {
  try {
    return decodeClaim(value);
  } catch {
    return null;
  }
}
