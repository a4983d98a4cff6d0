import { randomFillSync } from "node:crypto";

/** Bytes of randomness in a session id: 16 base64url characters. */
const idBytes = 12;
/** Ids drawn from one fill of the pool. */
const idsPerFill = 256;

/**
 * Random bytes for session ids, filled a few kilobytes at a time: every hello that starts a session needs
 * an id, and asking the system's random source for 12 bytes each time cost about six times what slicing
 * a pooled fill does (`crypto.randomUUID` keeps a cache of its own for the same reason). No byte of the
 * pool goes into two ids: it is filled again once every id of a fill was handed out.
 */
const pool = Buffer.alloc(idBytes * idsPerFill);
let used = pool.length;

/** A new session id: 12 random bytes, base64url (the same 16-character form as before). */
export function freshSessionId(): string {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const id = pool.toString("base64url", used, used + idBytes);
  used += idBytes;
  return id;
}
