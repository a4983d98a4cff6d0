import type { Effect } from "../runtime/index.ts";
import { freeByTeam, meanRating } from "./lobby-rules.ts";
import type { LobbyStatus } from "./matched-lobby-messages.ts";
import { takesJoiners } from "./matched-lobby-membership.ts";
import type { LobbyStep } from "./matched-lobby-options.ts";
import type { MatchedLobbyState } from "./matched-lobby-state.ts";

/** What a matched lobby tells its queue, so the queue's view of open lobbies stays current. */

/** The lobby's report, numbered `version`. */
export function statusOf(state: MatchedLobbyState, lobby: string, version: number): LobbyStatus {
  const free = freeByTeam(state.lobbyType.teams, state.members);
  return {
    type: "lobbyStatus",
    lobby,
    version,
    region: state.region,
    phase: state.phase,
    rating: meanRating(state.members),
    open: takesJoiners(state) && Object.values(free).some((n) => n > 0),
    free,
    owner: state.owner,
    settings: state.settings,
    round: state.round,
    timetable: state.timetable,
    members: state.members,
  };
}

/**
 * Adds the report a transition owes the queue: `lobbyClosed` when the lobby stops, `lobbyStatus` (with the
 * next number) when anything the queue reads changed. Keeps `stop` last, so the runtime carries out
 * everything else before it deletes the actor. `before` undefined: the lobby was just created.
 */
export function withReport(before: MatchedLobbyState | undefined, step: LobbyStep, key: string): LobbyStep {
  const after = step.state;
  const stopped = step.effects.some((e) => e.type === "stop");
  const effects: Effect[] = step.effects.filter((e) => e.type !== "stop");
  if (stopped) {
    effects.push(
      { type: "tell", to: after.queue, message: { type: "lobbyClosed", lobby: key } },
      { type: "stop" },
    );
    return { state: after, effects };
  }
  const changed =
    before === undefined ||
    JSON.stringify(statusOf(before, key, 1)) !== JSON.stringify(statusOf(after, key, 1));
  if (!changed) return step;
  const state: MatchedLobbyState = { ...after, reports: after.reports + 1 };
  effects.push({ type: "tell", to: after.queue, message: statusOf(state, key, state.reports) });
  return { state, effects };
}
