import { isRetryable, type AskResult } from "../../actors/runtime/index.ts";
import type { Session } from "./session.ts";

/** Where a session's news goes: the runtime's `tell`. */
interface Teller {
  tell(key: string, message: unknown): void;
}

/** What a key is told when the session's player is no longer connected to it. */
export function disconnected(session: Session): { type: "connection"; player: string; connected: false } {
  return { type: "connection", player: session.player, connected: false };
}

/**
 * Whether a disconnect another node tells `key` about `session`'s player is stale (fleet/node-endpoint.ts,
 * `staleDisconnect`): the session is live here and in `key`, or entering it. One dropped while the session
 * is only entering `key` is held until the entry ends (`enteredOrNot`).
 */
export function inKeyHere(session: Session | undefined, key: string): boolean {
  if (session?.socket == null) return false;
  if (session.keys().includes(key)) return true;
  if (session.entering !== key && session.enteringRoom !== key) return false;
  session.holdDisconnect(key);
  return true;
}

/**
 * Ends an entry of `session` into `key` (a lobby join or create, a room join), once its answer has been
 * applied. A disconnect another node told `key` about the player's old socket while the session was
 * entering it was dropped as stale; if the session did not end up in `key` after all (the join failed),
 * nothing here would ever report the player gone from it, so `key` hears it now. A failure that may yet
 * turn out otherwise — retryable (the SDK sends the join again) or of unknown outcome (a timeout) —
 * keeps the disconnect held: for the retried join, or for the socket's close (`heldOnClose`).
 */
export function enteredOrNot(session: Session, key: string, result: AskResult, system: Teller): void {
  if (!session.heldDisconnects.has(key)) return;
  if (session.keys().includes(key)) {
    session.releaseDisconnect(key);
    return;
  }
  if (result.ok || isRetryable(result.code) || result.code === "TIMEOUT") return;
  session.releaseDisconnect(key);
  system.tell(key, disconnected(session));
}

/**
 * The held disconnects of a session whose socket closed, for keys it is not in: told now (the close
 * reports the keys it is in). The session holds none afterwards.
 */
export function heldOnClose(session: Session, system: Teller): void {
  const keys = session.keys();
  for (const key of session.heldDisconnects) if (!keys.includes(key)) system.tell(key, disconnected(session));
  session.releaseDisconnects();
}
