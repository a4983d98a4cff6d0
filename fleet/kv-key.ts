/**
 * The names a KV store accepts, as NATS KV defines them, checked before any I/O so the in-memory store
 * refuses exactly what a NATS bucket would. A bad name is a bug in the caller: it throws TypeError.
 */

// A key becomes the last token(s) of a subject `$KV.<bucket>.<key>`: `.` separates tokens, so a key may
// not start or end with one or hold an empty token; `*`, `>` and whitespace would be wildcards or breaks.
const keyPattern = /^[-/=.\w]+$/;
const prefixPattern = /^[-/=.\w]*$/;
const bucketPattern = /^[-\w]+$/;

/** Throws TypeError unless `key` is a valid KV key (letters, digits and `- / = _ .`, e.g. `lobby/ABC123`). */
export function assertKvKey(key: string): void {
  if (!keyPattern.test(key) || key.startsWith(".") || key.endsWith(".") || key.includes("..")) {
    throw new TypeError(
      `invalid KV key ${JSON.stringify(key)}: use letters, digits and - / = _ . (no spaces, no * or >, no empty token)`,
    );
  }
}

/** Throws TypeError unless `prefix` could begin a valid key (the empty prefix matches every key). */
export function assertKvPrefix(prefix: string): void {
  if (!prefixPattern.test(prefix) || prefix.startsWith(".") || prefix.includes("..")) {
    throw new TypeError(
      `invalid KV key prefix ${JSON.stringify(prefix)}: use letters, digits and - / = _ . (no spaces, no * or >)`,
    );
  }
}

/** Throws TypeError unless `name` is a valid bucket name (letters, digits, `-` and `_`). */
export function assertBucketName(name: string): void {
  if (!bucketPattern.test(name)) {
    throw new TypeError(`invalid KV bucket name ${JSON.stringify(name)}: use letters, digits, - and _`);
  }
}

/** Throws TypeError unless `revision` is a positive integer, as a compare-and-set needs. */
export function assertRevision(revision: number): void {
  if (!Number.isSafeInteger(revision) || revision < 1) {
    throw new TypeError(`invalid KV revision ${revision}: a positive integer`);
  }
}
