import type { KvBucket } from "../../../fleet/index.ts";

/** The bucket with a watch that never delivers (a silent or lagging watcher, NATS-NOTES). */
export const silentWatch = (bucket: KvBucket): KvBucket => ({
  name: bucket.name,
  get: (k) => bucket.get(k),
  create: (k, v) => bucket.create(k, v),
  update: (k, v, r) => bucket.update(k, v, r),
  put: (k, v) => bucket.put(k, v),
  delete: (k, o) => bucket.delete(k, o),
  keys: (p) => bucket.keys(p),
  watch: () => ({ stop: () => undefined }),
});
