import { andThen, pushTo, refuse, reply, type Effect } from "../runtime/index.ts";
import { chooseTeam, freeByTeam } from "./lobby-rules.ts";
import { pushView } from "./matched-lobby-frames.ts";
import type { Group, JoinResult, MatchedLobbyMessageOf } from "./matched-lobby-messages.ts";
import type { LobbyStep, MatchedLobbyEnv } from "./matched-lobby-options.ts";
import type { MatchedLobbyState, MatchedMember } from "./matched-lobby-state.ts";
import { cancelAccept } from "./matched-lobby-accept.ts";
import { settle } from "./matched-lobby-start.ts";

/** Joining (groups the queue matched), leaving, and the ready flag. */

/**
 * True when the lobby takes joiners in its phase: before the start always; never during the accept phase
 * (a newcomer would have to be asked too); once starting or playing only with `allowJoinInProgress`.
 */
export function takesJoiners(state: MatchedLobbyState): boolean {
  if (state.phase === "early" || state.phase === "pre_game") return true;
  if (state.accepting !== null) return false;
  return state.lobbyType.rules.allowJoinInProgress;
}

/** The team the group would join now, or undefined when the lobby cannot take it. */
export function placeFor(state: MatchedLobbyState, group: Group): string | undefined {
  if (!takesJoiners(state)) return undefined;
  const free = freeByTeam(state.lobbyType.teams, state.members);
  return chooseTeam(state.lobbyType.teams, free, group.team, group.players.length);
}

/** The members a group becomes in a team. */
export function membersOf(group: Group, team: string): MatchedMember[] {
  return group.players.map((p) => ({
    id: p.id,
    name: p.name,
    rating: p.rating,
    team,
    isReady: p.isReady,
    extra: p.extra,
  }));
}

function answer(state: MatchedLobbyState, group: Group, ok: boolean, key: string): Effect {
  const result: JoinResult = { type: "joinResult", entry: group.entry, lobby: key, ok };
  return { type: "tell", to: state.queue, message: result };
}

/**
 * A group the queue matched joins, all in one team, or none of it does; the queue hears `joinResult`
 * either way (its view may have been stale). A group already in the lobby (a repeated join) is taken
 * again without change. Joiners of a lobby already playing are told its room.
 */
export function join(
  state: MatchedLobbyState,
  message: MatchedLobbyMessageOf<"join">,
  env: MatchedLobbyEnv,
): LobbyStep {
  const { group } = message;
  const key = env.ctx.key;
  const present = group.players.filter((p) => state.members.some((m) => m.id === p.id));
  if (present.length === group.players.length)
    return { state, effects: [answer(state, group, true, key), reply()] };
  const team = present.length === 0 ? placeFor(state, group) : undefined;
  if (team === undefined) return { state, effects: [answer(state, group, false, key), reply()] };
  const next: MatchedLobbyState = { ...state, members: [...state.members, ...membersOf(group, team)] };
  const joiners = group.players.map((p) => p.id);
  const room =
    next.phase === "playing" && next.room !== null
      ? pushTo(joiners, { type: "lobbyStarted", lobby: key, room: next.room })
      : [];
  const first: LobbyStep = {
    state: next,
    effects: [answer(state, group, true, key), ...pushView(next, key), ...room, reply()],
  };
  return andThen(first, (s) => settle(s, env));
}

/** Removes members; the first remaining member owns the lobby when its owner went. */
export function without(state: MatchedLobbyState, players: readonly string[]): MatchedLobbyState {
  const members = state.members.filter((m) => !players.includes(m.id));
  const owner = players.includes(state.owner) ? (members[0]?.id ?? state.owner) : state.owner;
  return { ...state, members, owner };
}

/**
 * A member leaves. During the accept phase that is a decline. The last member leaving ends the lobby;
 * otherwise the rules are checked again (fewer members may make the ready share).
 */
export function leave(
  state: MatchedLobbyState,
  message: MatchedLobbyMessageOf<"leave">,
  env: MatchedLobbyEnv,
): LobbyStep {
  const { player } = message;
  if (!state.members.some((m) => m.id === player))
    return refuse(state, "NOT_IN_LOBBY", `${player} is not in ${env.ctx.key}`);
  if (state.accepting !== null)
    return andThen(cancelAccept(state, [player], "declined", env), (s) => ({ state: s, effects: [reply()] }));
  const next = without(state, [player]);
  if (next.members.length === 0) return { state: next, effects: [reply(), { type: "stop" }] };
  return andThen({ state: next, effects: [...pushView(next, env.ctx.key), reply()] }, (s) => settle(s, env));
}

/** A member sets its ready flag; the rules are checked again. */
export function setReady(
  state: MatchedLobbyState,
  message: MatchedLobbyMessageOf<"ready">,
  env: MatchedLobbyEnv,
): LobbyStep {
  const { player, ready } = message;
  const member = state.members.find((m) => m.id === player);
  if (member === undefined) return refuse(state, "NOT_IN_LOBBY", `${player} is not in ${env.ctx.key}`);
  if (member.isReady === ready) return { state, effects: [reply()] };
  const next: MatchedLobbyState = {
    ...state,
    members: state.members.map((m) => (m.id === player ? { ...m, isReady: ready } : m)),
  };
  return andThen({ state: next, effects: [...pushView(next, env.ctx.key), reply()] }, (s) => settle(s, env));
}
