import { drawCode, roomKey, type RoomInit, type Seat } from "../common/index.ts";
import { andThen, pushTo, type Effect } from "../runtime/index.ts";
import { everyTeamAtMin, isFull, isReady } from "./lobby-rules.ts";
import type { Team } from "./lobby-type.ts";
import type { DisbandReason } from "./matched-lobby-frames.ts";
import { everyone, pushView } from "./matched-lobby-frames.ts";
import type { LobbyStep, MatchedLobbyEnv } from "./matched-lobby-options.ts";
import type { MatchedLobbyState } from "./matched-lobby-state.ts";
import {
  acceptTimerName,
  armTimetable,
  cancelTimetable,
  startRetryTimerName,
  timetableFrom,
} from "./matched-lobby-timers.ts";

/** The start rules of SPEC §3 and what follows a start: the accept phase, the room, the next round. */

/**
 * True when a lobby in `pre_game` should start now: ready and full (or allowed to start early); at
 * onTime if ready; with `forceOnTimeStartWithoutReady`, at onTime once every team has its `minUsers`.
 */
export function shouldStart(state: MatchedLobbyState, now: number): boolean {
  const { teams, rules } = state.lobbyType;
  const ready = isReady(teams, rules, state.members);
  if (ready && (rules.allowEarlyStartWithoutMax || isFull(teams, state.members))) return true;
  if (now < state.timetable.onTime) return false;
  return ready || (rules.forceOnTimeStartWithoutReady && everyTeamAtMin(teams, state.members));
}

/**
 * Brings the lobby in line with the clock and its members, whatever message or timer came in: `early`
 * becomes `pre_game` at the earliest start; a `pre_game` lobby starts when the rules say so, or is
 * disbanded once tooLate has passed. Deciding from the time, not from which timer fired, makes deadlines
 * that coincide (the seed's onTime = tooLate) come out the same in any order: a start at onTime wins.
 */
export function settle(state: MatchedLobbyState, env: MatchedLobbyEnv): LobbyStep {
  const { now } = env.ctx;
  let next = state;
  if (next.phase === "early" && now >= next.timetable.early) next = { ...next, phase: "pre_game" };
  if (next.phase !== "pre_game" || next.members.length === 0) return { state: next, effects: [] };
  if (shouldStart(next, now)) return decideStart(next, env);
  if (now >= next.timetable.tooLate) return disband(next, "tooLate", env);
  return { state: next, effects: [] };
}

/** The lobby ends: every member hears why, and the actor stops (the queue hears `lobbyClosed`). */
export function disband(state: MatchedLobbyState, reason: DisbandReason, env: MatchedLobbyEnv): LobbyStep {
  const frame = { type: "lobbyDisbanded", lobby: env.ctx.key, reason };
  return { state, effects: [...pushTo(everyone(state), frame), { type: "stop" }] };
}

/** The start is decided: the accept phase first when the type asks for one, else the room at once. */
function decideStart(state: MatchedLobbyState, env: MatchedLobbyEnv): LobbyStep {
  const accept = state.lobbyType.accept;
  const stopped: MatchedLobbyState = { ...state, phase: "starting" };
  if (accept === undefined)
    return andThen({ state: stopped, effects: cancelTimetable() }, (s) => spawnRoom(s, env));
  const matchId = `${env.ctx.key}#${state.round}`;
  const acceptBy = env.ctx.now + accept.timeoutSecs * 1000;
  const next: MatchedLobbyState = { ...stopped, accepting: { matchId, acceptBy, accepted: [] } };
  return {
    state: next,
    effects: [
      ...cancelTimetable(),
      { type: "timer", name: acceptTimerName, at: acceptBy, kind: "game" },
      ...pushView(next, env.ctx.key),
      ...pushTo(everyone(next), { type: "matchFound", lobby: env.ctx.key, matchId, acceptBy }),
    ],
  };
}

/** A room's seats for players in order (seat ids 1, 2, …), each team the index of its code in the type. */
export function seatsFor(teams: readonly Team[], players: readonly { id: string; team: string }[]): Seat[] {
  const codes = teams.map((t) => t.code);
  return players.map((p, i) => ({ seat: i + 1, team: Math.max(0, codes.indexOf(p.team)), player: p.id }));
}

/** The room's seats: every member in join order. */
export function matchedSeats(state: MatchedLobbyState): Seat[] {
  return seatsFor(state.lobbyType.teams, state.members);
}

/**
 * Spawns the room `room/<CODE>` for every member, with the private lobby's init shape (the owner is the
 * room's host, the type id its mode). A node that cannot open a room now keeps the lobby `starting` and
 * tries again shortly. With `disbandOnStart` the lobby ends as its room starts.
 */
export function spawnRoom(state: MatchedLobbyState, env: MatchedLobbyEnv): LobbyStep {
  const { ctx, options } = env;
  const retry: Effect = {
    type: "timer",
    name: startRetryTimerName,
    at: ctx.now + options.startRetryMs,
    kind: "game",
  };
  const waiting: MatchedLobbyState = { ...state, phase: "starting", accepting: null, room: null };
  if (!ctx.node.canOpenRoom || ctx.node.draining) return { state: waiting, effects: [retry] };
  const code = drawCode(ctx.random, options.roomCodeLength, options.roomCodeAlphabet);
  const init: RoomInit = {
    code,
    lobby: ctx.key,
    mode: state.lobbyType.id,
    host: state.owner,
    seats: matchedSeats(state),
  };
  const next: MatchedLobbyState = { ...waiting, phase: "playing", room: code };
  const effects: Effect[] = [
    { type: "spawn", key: roomKey(code), init, quietIfFailed: true },
    ...pushView(next, ctx.key),
    ...pushTo(everyone(next), { type: "lobbyStarted", lobby: ctx.key, room: code }),
  ];
  if (!state.lobbyType.rules.disbandOnStart) return { state: next, effects };
  const end = disband(next, "started", env);
  return { state: end.state, effects: [...effects, ...end.effects] };
}

/**
 * A new round after the room: everyone back, nobody ready, a fresh timetable from now (the old one has
 * long passed, and keeping it would disband the lobby at once).
 */
export function nextRound(state: MatchedLobbyState, env: MatchedLobbyEnv): LobbyStep {
  const timetable = timetableFrom(env.ctx.now, state.lobbyType.rules);
  const next: MatchedLobbyState = {
    ...state,
    phase: "early",
    round: state.round + 1,
    timetable,
    room: null,
    accepting: null,
    members: state.members.map((m) => ({ ...m, isReady: false })),
  };
  return andThen({ state: next, effects: armTimetable(timetable) }, (s) => {
    const settled = settle(s, env);
    return settled.effects.length > 0
      ? settled
      : { state: settled.state, effects: pushView(settled.state, env.ctx.key) };
  });
}
