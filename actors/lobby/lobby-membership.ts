import { refuse, reply, withEffects, type ActorContext, type Transition } from "../runtime/index.ts";
import { playerKey } from "../common/index.ts";
import { departAndPush } from "./departures.ts";
import { reconnect } from "./lobby-connection.ts";
import { pushState, pushStateTo } from "./lobby-frames.ts";
import type { LobbyMessageOf } from "./lobby-messages.ts";
import { joinRefusal } from "./lobby-door.ts";
import type { LobbyState } from "./lobby-state.ts";
import { findMember } from "./lobby-state.ts";
import { cancelGrace } from "./lobby-timers.ts";
import { addMember, updateMember } from "./members.ts";
import type { LobbyEnv } from "./lobby-env.ts";

/** Joining, leaving, and what members change about themselves and the host role. */

type Step = Transition<LobbyState>;

/** Tells the player's registry it is in this lobby now (it leaves the lobby it was in). */
export function joinedTell(player: string, ctx: ActorContext) {
  return { type: "tell", to: playerKey(player), message: { type: "joined", lobby: ctx.key } } as const;
}

/**
 * A new member joins at the end of the join order, if the door lets it in (lobby-door.ts). A member
 * joining again is reconnected if it had dropped, and is sent the state either way: the door is for
 * newcomers, and a member away within its grace keeps its seat.
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
  const refused = joinRefusal(state, message, env);
  if (refused) return refused;
  const next = addMember(state, message.player);
  return { state: next, effects: [pushState(next), answer, joinedTell(id, env.ctx)] };
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
