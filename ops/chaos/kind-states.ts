import type { WrittenLobby } from "./chaos-journal.ts";

/**
 * The members of an activity lobby's or a matched lobby's written state, and a digest of what their
 * frames show, for the hearing audit (read loosely, as `writtenLobby` reads a private lobby's).
 */

/**
 * An activity lobby (`activityLobby/<id>/<n>`): its players, and what its `activity` events show — who
 * is in it and ready while it counts down, and that it started (every player is sent its transfer). A
 * player's connection is not in its events, nor the countdown's clock, so neither is in the digest.
 */
export function writtenActivityLobby(state: unknown): WrittenLobby | null {
  if (typeof state !== "object" || state === null) return null;
  const { players, stage } = state as { players?: unknown; stage?: unknown };
  if (!Array.isArray(players) || typeof stage !== "object" || stage === null) return null;
  const list = players.filter(
    (p): p is { id: string; ready: unknown; connected: boolean } =>
      typeof p === "object" &&
      p !== null &&
      typeof (p as { id?: unknown }).id === "string" &&
      typeof (p as { connected?: unknown }).connected === "boolean",
  );
  const phase = (stage as { phase?: unknown }).phase;
  return {
    members: list.map((p) => ({ player: p.id, connected: p.connected })),
    digest: JSON.stringify(phase === "waiting" ? [list.map((p) => [p.id, p.ready])] : ["started"]),
  };
}

/**
 * A matched lobby (`mmlobby/<type>/<n>`): its members (the state does not say who is connected: the
 * audit's own connection record does), and what its `matchedLobby` view shows.
 */
export function writtenMatchedLobby(state: unknown): WrittenLobby | null {
  if (typeof state !== "object" || state === null) return null;
  const { members, phase, owner, round } = state as {
    members?: unknown;
    phase?: unknown;
    owner?: unknown;
    round?: unknown;
  };
  if (!Array.isArray(members)) return null;
  const list = members.filter(
    (m): m is { id: string; isReady: unknown; team: unknown } =>
      typeof m === "object" && m !== null && typeof (m as { id?: unknown }).id === "string",
  );
  return {
    members: list.map((m) => ({ player: m.id, connected: true })),
    digest: JSON.stringify([list.map((m) => [m.id, m.isReady, m.team]), phase, owner, round]),
  };
}
