import type {
  KvBucket,
  KvBucketOptions,
  KvEntry,
  KvStore,
  KvWatch,
  KvWatchOptions,
} from "../../fleet/index.ts";

/** A KV write's call. */
export type KvWriteCall = "create" | "update" | "put" | "delete";

/** Runs one write of bucket `bucket` (`write`), doing what it likes around it. */
export type AroundWrite = <T>(
  bucket: string,
  call: KvWriteCall,
  key: string,
  write: () => Promise<T>,
) => Promise<T>;

/** The store `kv` with every write of every bucket it opens run through `around`; reads and watches pass. */
export function viewWrites(kv: KvStore, around: AroundWrite): KvStore {
  return {
    bucket: async (name: string, opts?: KvBucketOptions) => viewBucket(await kv.bucket(name, opts), around),
    close: () => kv.close(),
  };
}

function viewBucket(inner: KvBucket, around: AroundWrite): KvBucket {
  const name = inner.name;
  return {
    name,
    get: (key: string): Promise<KvEntry | null> => inner.get(key),
    create: (key, value) => around(name, "create", key, () => inner.create(key, value)),
    update: (key, value, expected) => around(name, "update", key, () => inner.update(key, value, expected)),
    put: (key, value) => around(name, "put", key, () => inner.put(key, value)),
    delete: (key, opts) => around(name, "delete", key, () => inner.delete(key, opts)),
    keys: (prefix?: string): Promise<string[]> => inner.keys(prefix),
    watch: (opts: KvWatchOptions, onEntry: (entry: KvEntry) => void): KvWatch => inner.watch(opts, onEntry),
  };
}
