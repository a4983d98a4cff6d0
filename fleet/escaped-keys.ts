import type { KvBucket, KvEntry, KvWatch, KvWatchOptions } from "./kv.ts";

const plainKey = /^[-/\w]*$/;

/**
 * Actor keys hold ids that studios choose (`player/auth0|123`, `player/ann@example.com`), but a KV key
 * allows only letters, digits and `- / _ = .`. Every other character — and `=` and `.` themselves — is
 * written as `=` followed by two hex digits per UTF-8 byte, so the mapping is reversible and keys that
 * were valid before keep their shape (`lobby/ABC123` stays `lobby/ABC123`).
 */
export function escapeKvKey(key: string): string {
  if (plainKey.test(key)) return key;
  let out = "";
  for (const char of key) {
    if (/^[-/\w]$/.test(char)) out += char;
    else
      for (const byte of Buffer.from(char, "utf8"))
        out += `=${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The actor key an escaped KV key stands for. */
export function unescapeKvKey(key: string): string {
  if (!key.includes("=")) return key;
  return Buffer.from(
    key.replace(/=([0-9A-F]{2})|[^=]+/g, (part, hex: string | undefined) =>
      hex === undefined
        ? Buffer.from(part, "utf8").toString("latin1")
        : String.fromCharCode(parseInt(hex, 16)),
    ),
    "latin1",
  ).toString("utf8");
}

/** A bucket seen through actor keys: keys are escaped on the way in and unescaped on the way out. */
export function withEscapedKeys(bucket: KvBucket): KvBucket {
  const outward = (entry: KvEntry): KvEntry => ({ ...entry, key: unescapeKvKey(entry.key) });
  return {
    name: bucket.name,
    get: async (key) => {
      const entry = await bucket.get(escapeKvKey(key));
      return entry ? outward(entry) : null;
    },
    create: (key, value) => bucket.create(escapeKvKey(key), value),
    update: (key, value, revision) => bucket.update(escapeKvKey(key), value, revision),
    put: (key, value) => bucket.put(escapeKvKey(key), value),
    delete: (key, opts) => bucket.delete(escapeKvKey(key), opts),
    keys: async (prefix) =>
      (await bucket.keys(prefix === undefined ? undefined : escapeKvKey(prefix))).map(unescapeKvKey),
    watch: (opts: KvWatchOptions, onEntry): KvWatch =>
      bucket.watch(
        opts.prefix === undefined ? opts : { ...opts, prefix: escapeKvKey(opts.prefix) },
        (entry) => {
          onEntry(outward(entry));
        },
      ),
  };
}
