import { refuse, type Transition } from "../runtime/index.ts";
import type { LobbyState } from "./lobby-state.ts";
import { findMember } from "./lobby-state.ts";

/**
 * The check every host-only change makes first. `player` is the member asking; undefined is the studio's
 * backend (docs/server-api.md), which may do whatever the host may.
 */
export function hostRefusal(
  state: LobbyState,
  player: string | undefined,
): Transition<LobbyState> | undefined {
  if (player === undefined) return undefined;
  if (findMember(state, player) === undefined) {
    return refuse(state, "NOT_IN_LOBBY", `${player} is not in lobby ${state.code}`);
  }
  if (state.host !== player) return refuse(state, "NOT_HOST", "only the host may do this");
  return undefined;
}
