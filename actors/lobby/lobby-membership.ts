import {
  refuse,
  reply,
  withEffects,
  type ActorContext,
  type Effect,
  type Transition,
} from "../runtime/index.ts";
import { playerKey, type PlayerRef } from "../common/index.ts";
import { departAndPush } from "./departures.ts";
import { reconnect } from "./lobby-connection.ts";
import { pushState, pushStateTo } from "./lobby-frames.ts";
import type { LobbyMessageOf } from "./lobby-messages.ts";
import { lobbyInitSchema } from "./lobby-messages.ts";
import type { LobbyState } from "./lobby-state.ts";
import { findMember } from "./lobby-state.ts";
import { armGrace, cancelGrace } from "./lobby-timers.ts";
import { addMember, updateMember } from "./members.ts";
import type { LobbyEnv } from "./lobby-env.ts";

/** Joining, leaving, and what members change about themselves and the host role. */

type Step = Transition<LobbyState>;

/**
 * A new lobby with its creator as first member and host. An invalid init is a caller's bug (the gateway
 * validates requests), so it throws and the runtime reports INTERNAL.
 */
export function createLobby(init: unknown, ctx: ActorContext): Step {
  const { code, host, public: isPublic, metadata, members, reserveSeconds } = lobbyInitSchema.parse(init);
  const empty: LobbyState = {
    code,
    public: isPublic,
    metadata,
    members: [],
    host: host.id,
    nextMemberId: 1,
    room: null,
  };
  if (members.length > 0 || reserveSeconds !== undefined)
    return createReserved(empty, host, members, reserveSeconds, ctx);
  const state = addMember(empty, host);
  return {
    state,
    effects: [pushState(state), reply({ code }), joinedTell(host.id, ctx)],
  };
}

/**
 * A lobby made for players by the studio's backend: each player's registry hears it joined (and leaves the
 * lobby it was in), so the player finds the lobby when it connects. Until then it is away, with its seat
 * kept for `reserveSeconds` (a grace timer; without it the players count as here). A player listed twice is
 * one member.
 */
function createReserved(
  empty: LobbyState,
  host: PlayerRef,
  members: readonly PlayerRef[],
  reserveSeconds: number | undefined,
  ctx: ActorContext,
): Step {
  const players = [host, ...members].filter(
    (player, i, all) => all.findIndex((p) => p.id === player.id) === i,
  );
  let state = empty;
  for (const player of players) state = addMember(state, player);
  const effects: Effect[] = [];
  if (reserveSeconds !== undefined) {
    state = { ...state, members: state.members.map((m) => ({ ...m, connected: false })) };
    for (const player of players) effects.push(armGrace(player.id, ctx.now, reserveSeconds));
  }
  effects.push(pushState(state), reply({ code: state.code }));
  for (const player of players) effects.push(joinedTell(player.id, ctx));
  return { state, effects };
}

function joinedTell(player: string, ctx: ActorContext) {
  return { type: "tell", to: playerKey(player), message: { type: "joined", lobby: ctx.key } } as const;
}

/**
 * A new member joins at the end of the join order (FULL at maxMembers). A member joining again is
 * reconnected if it had dropped, and is sent the state either way.
 */
export function join(state: LobbyState, message: LobbyMessageOf<"join">, env: LobbyEnv): Step {
  const { id } = message.player;
  const answer = reply({ code: state.code });
  const member = findMember(state, id);
  if (member !== undefined) {
    // Connected: here already, so a migration's arrival window (if one is open) is closed too.
    if (member.connected) return { state, effects: [cancelGrace(id), pushStateTo(state, id), answer] };
    return withEffects(reconnect(state, id), answer);
  }
  if (state.members.length >= env.options.maxMembers) {
    return refuse(state, "FULL", `lobby ${state.code} has ${env.options.maxMembers} members`);
  }
  const next = addMember(state, message.player);
  return { state: next, effects: [pushState(next), answer, joinedTell(id, env.ctx)] };
}

/**
 * The studio's backend takes a member out. The kicked player is sent the new state too (it no longer
 * lists it, so its client shows it left); a player who is not a member is NOT_IN_LOBBY, nothing changed.
 */
export function kick(state: LobbyState, message: LobbyMessageOf<"kick">, env: LobbyEnv): Step {
  const { target } = message;
  if (findMember(state, target) === undefined) {
    return refuse(state, "NOT_IN_LOBBY", `${target} is not in lobby ${state.code}`);
  }
  const step = departAndPush(state, target, "leave", env);
  return withEffects(step, pushStateTo(step.state, target), reply());
}

/** A member leaves; leaving a lobby one is not in is a success that changes nothing. */
export function leave(state: LobbyState, message: LobbyMessageOf<"leave">, env: LobbyEnv): Step {
  return withEffects(departAndPush(state, message.player, "leave", env), reply());
}

/** A member sets its ready flag. */
export function setReady(state: LobbyState, message: LobbyMessageOf<"ready">): Step {
  return changeSelf(state, message.player, "ready", message.ready);
}

/** A member changes its display name. */
export function setProfile(state: LobbyState, message: LobbyMessageOf<"profile">): Step {
  return changeSelf(state, message.player, "name", message.name);
}

function changeSelf<F extends "ready" | "name">(
  state: LobbyState,
  player: string,
  field: F,
  value: LobbyState["members"][number][F],
): Step {
  const member = findMember(state, player);
  if (member === undefined) return refuse(state, "NOT_IN_LOBBY", `${player} is not in lobby ${state.code}`);
  if (member[field] === value) return { state, effects: [reply()] };
  const next = updateMember(state, player, { [field]: value });
  return { state: next, effects: [pushState(next), reply()] };
}

/** The host hands its role to another member. */
export function makeHost(state: LobbyState, message: LobbyMessageOf<"makeHost">): Step {
  const { player, target } = message;
  if (findMember(state, player) === undefined) {
    return refuse(state, "NOT_IN_LOBBY", `${player} is not in lobby ${state.code}`);
  }
  if (state.host !== player) return refuse(state, "NOT_HOST", "only the host may hand over the host role");
  if (findMember(state, target) === undefined) {
    return refuse(state, "NOT_IN_LOBBY", `${target} is not in lobby ${state.code}`);
  }
  if (target === player) return { state, effects: [reply()] };
  const next: LobbyState = { ...state, host: target };
  return { state: next, effects: [pushState(next), reply()] };
}
