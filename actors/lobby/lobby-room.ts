import {
  refuse,
  reply,
  stops,
  andThen,
  withEffects,
  type Effect,
  type Transition,
} from "../runtime/index.ts";
import { drawCode, roomKey, type RoomInit } from "../common/index.ts";
import { dropAbsentPlayers } from "./departures.ts";
import { pushState } from "./lobby-frames.ts";
import type { LobbyMessageOf } from "./lobby-messages.ts";
import { teamSizeOf } from "./lobby-options.ts";
import type { LobbyState } from "./lobby-state.ts";
import { findMember } from "./lobby-state.ts";
import { returnTimerName } from "./lobby-timers.ts";
import { updateMember } from "./members.ts";
import { membersFit, seatMembers, teamOf } from "./seats.ts";
import type { LobbyEnv } from "./lobby-env.ts";

/** Starting a room for the whole lobby and coming back from it. */

type Step = Transition<LobbyState>;

/** How soon a start refused for capacity is worth retrying; by then a room may have closed or the lobby moved. */
const startRetryAfterMs = 1000;

function checkStart(state: LobbyState, message: LobbyMessageOf<"start">, env: LobbyEnv): Step | number {
  const { player, mode } = message;
  if (findMember(state, player) === undefined) {
    return refuse(state, "NOT_IN_LOBBY", `${player} is not in lobby ${state.code}`);
  }
  if (state.host !== player) return refuse(state, "NOT_HOST", "only the host may start a room");
  const teamSize = teamSizeOf(env.options, mode);
  if (teamSize === undefined) return refuse(state, "INVALID", `unknown mode ${mode}`);
  if (state.room !== null) return refuse(state, "ALREADY_PLAYING", `room ${state.room.code} is playing`);
  if (!membersFit(state.members.length, teamSize)) {
    return refuse(state, "TOO_MANY_PLAYERS", `${mode} seats at most ${2 * teamSize} players`);
  }
  if (!env.ctx.node.canOpenRoom || env.ctx.node.draining) {
    return refuse(state, "UNAVAILABLE", "this node cannot open a room now", startRetryAfterMs);
  }
  return teamSize;
}

/**
 * The host starts a room for every member: teams alternate in join order, bots fill each team, and the
 * room is spawned under a freshly drawn code. Answers `{ room: code }`.
 */
export function start(state: LobbyState, message: LobbyMessageOf<"start">, env: LobbyEnv): Step {
  const checked = checkStart(state, message, env);
  if (typeof checked !== "number") return checked;
  const { options, ctx } = env;
  const code = drawCode(ctx.random, options.roomCodeLength, options.roomCodeAlphabet);
  const seats = seatMembers(state.members, checked, options.botSeatIdBase);
  const next: LobbyState = {
    ...state,
    // A member away at the start keeps its seat in the room, but for the lobby it is not in it: its lobby
    // grace runs on, and the room's end does not take it out (SPEC §1, Disconnects).
    members: state.members.map((m, i) => ({ ...m, team: teamOf(i), inRoom: m.connected })),
    room: { code, mode: message.mode, seats, ended: false },
  };
  const init: RoomInit = {
    code,
    lobby: ctx.key,
    mode: message.mode,
    host: message.player,
    seats,
    ...(message.blob === undefined ? {} : { blob: message.blob }),
  };
  return {
    state: next,
    effects: [
      { type: "spawn", key: roomKey(code), init, quietIfFailed: true },
      pushState(next),
      reply({ room: code }),
    ],
  };
}

/**
 * Everyone is back in the lobby: no room, nobody in one. If the room was still running, members away
 * from it leave first; once it had ended, those who dropped since are on their lobby grace and stay.
 */
function backToLobby(state: LobbyState, env: LobbyEnv): Step {
  if (state.room === null) return { state, effects: [] };
  const step = state.room.ended
    ? { state, effects: [] }
    : dropAbsentPlayers({ ...state, room: { ...state.room, ended: true } }, env);
  if (stops(step)) return step;
  const next: LobbyState = {
    ...step.state,
    room: null,
    members: step.state.members.map((m) => (m.inRoom ? { ...m, inRoom: false } : m)),
  };
  return { state: next, effects: [...step.effects, pushState(next)] };
}

/**
 * A member returns from the room. The host ends it for everyone at once; a guest steps out alone and
 * the room plays on without it.
 */
export function returnToLobby(state: LobbyState, message: LobbyMessageOf<"return">, env: LobbyEnv): Step {
  const { player } = message;
  const member = findMember(state, player);
  if (member === undefined) return refuse(state, "NOT_IN_LOBBY", `${player} is not in lobby ${state.code}`);
  const room = state.room;
  if (room === null) return refuse(state, "NOT_PLAYING", "no room is playing");
  if (player === state.host) {
    // An ended room has stopped itself; only the pending return is left to cancel.
    const first: Effect = room.ended
      ? { type: "cancelTimer", name: returnTimerName }
      : { type: "tell", to: roomKey(room.code), message: { type: "end" } };
    return withEffects(
      andThen({ state, effects: [first] }, (s) => backToLobby(s, env)),
      reply(),
    );
  }
  if (!member.inRoom) return { state, effects: [reply()] };
  const next = updateMember(state, player, { inRoom: false });
  const effects: Effect[] = room.ended
    ? []
    : [{ type: "tell", to: roomKey(room.code), message: { type: "leaveSeat", player } }];
  return { state: next, effects: [...effects, pushState(next), reply()] };
}

/**
 * The room reports its match is over: members still away leave now (there is nothing left to rejoin),
 * and everyone is brought back `returnAfterEndSeconds` later. A report about another room is stale.
 */
export function roomEnded(state: LobbyState, message: LobbyMessageOf<"roomEnded">, env: LobbyEnv): Step {
  const room = state.room;
  if (room?.code !== message.room || room.ended) return { state, effects: [reply()] };
  const ended: LobbyState = { ...state, room: { ...room, ended: true } };
  const step = dropAbsentPlayers(ended, env);
  if (stops(step)) return withEffects(step, reply());
  const at = env.ctx.now + env.options.returnAfterEndSeconds * 1000;
  const effects: Effect[] = [...step.effects, { type: "timer", name: returnTimerName, at, kind: "game" }];
  if (step.state.members.length !== state.members.length) effects.push(pushState(step.state));
  return { state: step.state, effects: [...effects, reply()] };
}

/** The return timer fired: the ended room is gone and everybody is back in the lobby. */
export function returnTimerFired(state: LobbyState, env: LobbyEnv): Step {
  if (state.room?.ended !== true) return { state, effects: [] };
  return backToLobby(state, env);
}

/**
 * The room could not be created (its code was taken, or the store refused it): nobody ever played in
 * it, so the lobby is simply not playing any more and the host may start again.
 */
export function roomSpawnFailed(state: LobbyState, message: LobbyMessageOf<"spawnFailed">): Step {
  const room = state.room;
  if (room === null || roomKey(room.code) !== message.key) return { state, effects: [] };
  const next: LobbyState = {
    ...state,
    room: null,
    members: state.members.map((m) => (m.inRoom ? { ...m, inRoom: false } : m)),
  };
  return { state: next, effects: [pushState(next)] };
}
