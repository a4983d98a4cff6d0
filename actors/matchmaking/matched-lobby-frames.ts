import { pushTo, type Effect, type PushFrame } from "../runtime/index.ts";
import { meanRating } from "./lobby-rules.ts";
import type { MatchedLobbyState } from "./matched-lobby-state.ts";

/** The frames members of a matched lobby hear. */

/** Every member's id, in join order. */
export function everyone(state: MatchedLobbyState): string[] {
  return state.members.map((m) => m.id);
}

/** The whole lobby as its members see it; sent after every change. */
export function lobbyView(state: MatchedLobbyState, lobby: string): PushFrame {
  return {
    type: "matchedLobby",
    lobby,
    lobbyType: state.lobbyType.id,
    phase: state.phase,
    round: state.round,
    owner: state.owner,
    rating: meanRating(state.members),
    timetable: state.timetable,
    members: state.members,
    room: state.room,
  };
}

/** The view pushed to every member. */
export function pushView(state: MatchedLobbyState, lobby: string): Effect[] {
  return pushTo(everyone(state), lobbyView(state, lobby));
}

/** Why a player stopped being a member without asking to. */
export type RemovedReason = "declined" | "acceptTimeout";

/** The lobby's end: `tooLate` (not started in time) or `started` (`disbandOnStart`). */
export type DisbandReason = "tooLate" | "started";
