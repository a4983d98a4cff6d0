import type { PeerView } from "./protocol/index.ts";

/** How soon a player asking for a key of an unreachable owner asks again (the router's own wait). */
export const staleOwnerRetryMs = 250;

/**
 * Whether a gateway may send a player to `peer`, the owner of the key it asked for: not when membership
 * has no heartbeat of it (tombstoned), nor when its last heartbeat is older than half the failure timeout.
 * A live peer beats every heartbeat and the failure timeout is at least three of them, so a fresh owner
 * never looks stale; one killed a moment ago does well before it is suspected, and players asking for its
 * keys wait (`UNAVAILABLE` with a retry) instead of being sent to a dead address again and again. A
 * peer whose heard time is not known is reachable: nothing says otherwise.
 */
export function ownerReachable(peer: PeerView, now: number, failureTimeoutMs: number): boolean {
  if (peer.heartbeat === null || peer.state === "dead") return false;
  if (peer.heardAt === undefined) return true;
  return now - peer.heardAt <= failureTimeoutMs / 2;
}
