import type { KvBucket } from "../../fleet/index.ts";

/**
 * `nodes` as one node sees it through a watch that can go silent — no error, no delivery, updates missed
 * meanwhile, as a NATS watch whose server died (NATS-NOTES) — counting the node's reads of the bucket.
 * A fault put between a node and a real store (in memory or NATS), not a stand-in for either.
 */
export function silenceableWatch(nodes: KvBucket) {
  const state = { silent: false, gets: 0, listings: 0 };
  const bucket: KvBucket = {
    name: nodes.name,
    get: (k) => {
      state.gets++;
      return nodes.get(k);
    },
    create: (k, v) => nodes.create(k, v),
    update: (k, v, r) => nodes.update(k, v, r),
    put: (k, v) => nodes.put(k, v),
    delete: (k, o) => nodes.delete(k, o),
    keys: (p) => {
      state.listings++;
      return nodes.keys(p);
    },
    watch: (o, onEntry) =>
      nodes.watch(o, (entry) => {
        if (!state.silent) onEntry(entry);
      }),
  };
  return { bucket, state };
}
