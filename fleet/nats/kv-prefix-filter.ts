/**
 * How a KV key prefix maps to NATS subjects. A key is stored verbatim as the subject `$KV.<bucket>.<key>`
 * (so `nats kv` shows Foyer's keys as they are), where only `.` separates subject tokens: `lobby/ABC123`
 * is ONE token, and the prefix `lobby/` cannot be a subject filter. So a prefix is served in two steps:
 * the server filters on the prefix's complete `.`-tokens (`activity/x.y` → `activity/x.>`; no `.` → `>`),
 * and the client keeps the keys that start with the whole prefix.
 */

/** The narrowest KV key filter (subject syntax) that matches every key starting with `prefix`. */
export function kvFilterForPrefix(prefix: string): string {
  const lastDot = prefix.lastIndexOf(".");
  return lastDot < 0 ? ">" : `${prefix.slice(0, lastDot)}.>`;
}
