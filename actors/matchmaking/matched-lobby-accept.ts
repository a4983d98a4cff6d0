import { pushView } from "./matched-lobby-frames.ts";
import type { RemovedReason } from "./matched-lobby-frames.ts";
import type { MatchedLobbyMessageOf } from "./matched-lobby-messages.ts";
import type { LobbyStep, MatchedLobbyEnv } from "./matched-lobby-options.ts";
import type { MatchedLobbyState } from "./matched-lobby-state.ts";
import { settle, spawnRoom } from "./matched-lobby-start.ts";
import { acceptTimerName, armTimetable } from "./matched-lobby-timers.ts";
import { andThen, pushTo, refuse, reply } from "../runtime/index.ts";

/** The accept phase of a matched lobby (SPEC §3, §4): every member accepts in time, or the start is off. */

/**
 * The match is off: the given members are removed (each told why), the others hear `matchCancelled` and
 * the lobby goes back to `pre_game` with its timetable re-armed. The others must ready again: they were
 * all ready, so keeping the flags would decide the start again at once and ask them in a loop.
 */
export function cancelAccept(
  state: MatchedLobbyState,
  removed: readonly string[],
  reason: RemovedReason,
  env: MatchedLobbyEnv,
): LobbyStep {
  const key = env.ctx.key;
  const matchId = state.accepting?.matchId ?? "";
  const members = state.members.filter((m) => !removed.includes(m.id)).map((m) => ({ ...m, isReady: false }));
  const owner = removed.includes(state.owner) ? (members[0]?.id ?? state.owner) : state.owner;
  const next: MatchedLobbyState = { ...state, members, owner, phase: "pre_game", accepting: null };
  const effects = [
    { type: "cancelTimer", name: acceptTimerName } as const,
    ...pushTo(removed, { type: "lobbyRemoved", lobby: key, reason }),
  ];
  if (members.length === 0) return { state: next, effects: [...effects, { type: "stop" }] };
  const told = [
    ...effects,
    ...pushTo(
      members.map((m) => m.id),
      { type: "matchCancelled", lobby: key, matchId, reason },
    ),
    ...pushView(next, key),
    ...armTimetable(next.timetable),
  ];
  return andThen({ state: next, effects: told }, (s) => settle(s, env));
}

/** A member accepts; when the last one does, the room is spawned. */
export function accept(
  state: MatchedLobbyState,
  message: MatchedLobbyMessageOf<"accept">,
  env: MatchedLobbyEnv,
): LobbyStep {
  const { player } = message;
  const accepting = state.accepting;
  if (!state.members.some((m) => m.id === player))
    return refuse(state, "NOT_IN_LOBBY", `${player} is not in ${env.ctx.key}`);
  if (accepting === null) return refuse(state, "INVALID", "no match is waiting to be accepted");
  if (accepting.accepted.includes(player)) return { state, effects: [reply()] };
  const accepted = [...accepting.accepted, player];
  const next: MatchedLobbyState = { ...state, accepting: { ...accepting, accepted } };
  if (!next.members.every((m) => accepted.includes(m.id))) return { state: next, effects: [reply()] };
  return andThen({ state: next, effects: [{ type: "cancelTimer", name: acceptTimerName }, reply()] }, (s) =>
    spawnRoom(s, env),
  );
}

/** A member declines: it is removed and the others go back to `pre_game`. */
export function decline(
  state: MatchedLobbyState,
  message: MatchedLobbyMessageOf<"decline">,
  env: MatchedLobbyEnv,
): LobbyStep {
  const { player } = message;
  if (!state.members.some((m) => m.id === player))
    return refuse(state, "NOT_IN_LOBBY", `${player} is not in ${env.ctx.key}`);
  if (state.accepting === null) return refuse(state, "INVALID", "no match is waiting to be accepted");
  return andThen(cancelAccept(state, [player], "declined", env), (s) => ({ state: s, effects: [reply()] }));
}

/** The accept deadline passed: every member who has not accepted is removed. A stale fire changes nothing. */
export function acceptExpired(state: MatchedLobbyState, env: MatchedLobbyEnv): LobbyStep {
  const accepting = state.accepting;
  if (accepting === null || env.ctx.now < accepting.acceptBy) return { state, effects: [] };
  const late = state.members.filter((m) => !accepting.accepted.includes(m.id)).map((m) => m.id);
  return cancelAccept(state, late, "acceptTimeout", env);
}
