import type { Seat } from "../common/index.ts";
import type { Member } from "./lobby-state.ts";

/** How a lobby's members and bots are seated in the room it starts. */

/** The team of the member at join-order index `index`: alternating, team 0 first (team 0 when equal). */
export function teamOf(index: number): number {
  return index % 2;
}

/** True when the members fit the mode: at most two full teams, or any number when the team size is 0. */
export function membersFit(memberCount: number, teamSize: number): boolean {
  return teamSize === 0 || memberCount <= 2 * teamSize;
}

/**
 * The seats of a new room: every member in join order (seat id = member id, team alternating), then bots
 * filling team 0 and then team 1 up to `teamSize`, with seat ids counting up from `botSeatIdBase`. A team
 * size of 0 seats the members only. A bot id that a long-lived lobby already gave a member is skipped, so
 * seat ids stay unique.
 */
export function seatMembers(members: readonly Member[], teamSize: number, botSeatIdBase: number): Seat[] {
  const seats: Seat[] = members.map((m, i) => ({ seat: m.memberId, team: teamOf(i), player: m.player }));
  if (teamSize === 0) return seats;
  const taken = new Set(members.map((m) => m.memberId));
  let nextBot = botSeatIdBase;
  for (const team of [0, 1]) {
    const humans = members.filter((_, i) => teamOf(i) === team).length;
    for (let n = humans; n < teamSize; n++) {
      while (taken.has(nextBot)) nextBot++;
      seats.push({ seat: nextBot, team, player: null });
      nextBot++;
    }
  }
  return seats;
}
