import type { StartRules, Team } from "./lobby-type.ts";

/** The counting rules of SPEC §3 a lobby and its queue share: rating, ready, full, team choice. */

/** What the rules read of a member. */
export interface Counted {
  readonly rating: number;
  readonly team: string;
  readonly isReady: boolean;
}

/** The lobby's rating: the mean of its members' ratings (0 with nobody in it). */
export function meanRating(members: readonly Pick<Counted, "rating">[]): number {
  if (members.length === 0) return 0;
  return members.reduce((sum, m) => sum + m.rating, 0) / members.length;
}

/** Members per team code, every configured team present. */
export function teamCounts(
  teams: readonly Team[],
  members: readonly Pick<Counted, "team">[],
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const team of teams) counts[team.code] = members.filter((m) => m.team === team.code).length;
  return counts;
}

/** Free places per team code. */
export function freeByTeam(
  teams: readonly Team[],
  members: readonly Pick<Counted, "team">[],
): Record<string, number> {
  const counts = teamCounts(teams, members);
  const free: Record<string, number> = {};
  for (const team of teams) free[team.code] = team.maxUsers - (counts[team.code] ?? 0);
  return free;
}

/** Every team has at least its `minUsers`. */
export function everyTeamAtMin(teams: readonly Team[], members: readonly Counted[]): boolean {
  const counts = teamCounts(teams, members);
  return teams.every((t) => (counts[t.code] ?? 0) >= t.minUsers);
}

/** Every team is at its `maxUsers`. */
export function isFull(teams: readonly Team[], members: readonly Pick<Counted, "team">[]): boolean {
  const counts = teamCounts(teams, members);
  return teams.every((t) => (counts[t.code] ?? 0) >= t.maxUsers);
}

/**
 * Ready (SPEC §3): every team has its `minUsers`, at least `everyReadyMinNum` members are ready, and at
 * least `everyReadyMinPercent` % of the members are ready. An empty lobby is never ready.
 */
export function isReady(teams: readonly Team[], rules: StartRules, members: readonly Counted[]): boolean {
  if (members.length === 0 || !everyTeamAtMin(teams, members)) return false;
  const ready = members.filter((m) => m.isReady).length;
  return ready >= rules.everyReadyMinNum && ready * 100 >= rules.everyReadyMinPercent * members.length;
}

/**
 * The team a group of `size` joins: the named one if it has room; with no name, the `autoAssign` team
 * with the most free room (the first configured on a tie). Undefined when the group does not fit.
 */
export function chooseTeam(
  teams: readonly Team[],
  free: Readonly<Record<string, number>>,
  requested: string | null,
  size: number,
): string | undefined {
  if (requested !== null) {
    const room = free[requested];
    return room !== undefined && room >= size ? requested : undefined;
  }
  let best: string | undefined;
  let bestRoom = -1;
  for (const team of teams) {
    const room = free[team.code] ?? 0;
    if (team.autoAssign && room >= size && room > bestRoom) {
      best = team.code;
      bestRoom = room;
    }
  }
  return best;
}
