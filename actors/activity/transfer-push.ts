import type { Effect } from "../runtime/index.ts";
import { pushTo } from "./activity-frames.ts";
import type { ActivityLobbyState } from "./activity-lobby-state.ts";

/**
 * The transfer a started lobby sends each of its players, on its start and again whenever that player
 * comes back; kept apart from the start itself, which takes players out through the lobby's membership.
 */

/** True when the players of a match are made a team: 2 or 3 of them, as the seed's worlds could hold. */
export function makesTeam(players: number): boolean {
  return players >= 2 && players <= 3;
}

/** The transfer frame for one player of a started lobby (none for a player who is not in it). */
export function transferPush(state: ActivityLobbyState, player: string): Effect[] {
  if (state.stage.phase !== "started") return [];
  const transfer = state.stage.transfers.find((t) => t.player === player);
  if (transfer === undefined) return [];
  const team = makesTeam(state.stage.transfers.length) ? state.stage.transfers.map((t) => t.player) : null;
  return pushTo([player], {
    type: "activityTransfer",
    activity: state.settings.id,
    map: state.settings.map,
    room: state.stage.room,
    token: transfer.token,
    team,
  });
}
