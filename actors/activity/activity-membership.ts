import { andThen, refuse, reply, withEffects, type Effect } from "../runtime/index.ts";
import type { ActivityEnv, Step } from "./activity-env.ts";
import { playerAdded, playerReadiness, playerRemoved, pushTo } from "./activity-frames.ts";
import type { ActivityLobbyMessageOf } from "./activity-lobby-messages.ts";
import type { ActivityLobbyState, ActivityPlayer } from "./activity-lobby-state.ts";
import { everyone, findPlayer, updatePlayer } from "./activity-lobby-state.ts";
import { capacity } from "./activity-settings.ts";
import { transferPush } from "./transfer-push.ts";
import { cancelGrace } from "./activity-timers.ts";
import { countdownLine, syncCountdown } from "./countdown.ts";

/** Joining, leaving and ready states: the seed's MatchUpdate table, in its order and to its recipients. */

/**
 * What a player hears on joining, in the seed's order: PLAYER_ADDED for itself, then for each other
 * player in join order PLAYER_ADDED followed by PLAYER_READY only if that player is ready, then the
 * countdown's time left: PHASE_WAIT_READY when it runs, PHASE_WAIT_PAUSED when it paused. A player's own
 * PLAYER_READY follows its line only when it is ready, which a fresh joiner never is: the same sequence is
 * the full picture a returning session is sent again.
 */
export function welcome(state: ActivityLobbyState, id: string, now: number): Effect[] {
  const self = findPlayer(state, id);
  if (self === undefined) return [];
  const lines = (p: ActivityPlayer): Effect[] => [
    ...pushTo([id], playerAdded(p)),
    ...(p.ready ? pushTo([id], playerReadiness(p.id, true)) : []),
  ];
  const effects = [...lines(self), ...state.players.filter((p) => p.id !== id).flatMap(lines)];
  const clock = countdownLine(state, now);
  return clock === null ? effects : [...effects, ...pushTo([id], clock)];
}

/** The full picture for a player already in the lobby: the welcome while waiting, its transfer once started. */
export function resync(state: ActivityLobbyState, id: string, env: ActivityEnv): Effect[] {
  return state.stage.phase === "started" ? transferPush(state, id) : welcome(state, id, env.ctx.now);
}

/** A player already in the lobby (a retried join, a new session): marked back, sent the full picture. */
function rejoin(state: ActivityLobbyState, player: ActivityPlayer, env: ActivityEnv): Step {
  const next = player.connected ? state : updatePlayer(state, player.id, { connected: true });
  const effects = player.connected ? [] : [cancelGrace(player.id)];
  return { state: next, effects: [...effects, ...resync(next, player.id, env)] };
}

/**
 * A player joins at the end of the join order: FULL once the lobby holds its capacity or has started
 * (the gateway then asks the directory again). A player already in the lobby is sent its picture again.
 * Answers `{ lobby: key }`.
 */
export function join(
  state: ActivityLobbyState,
  message: ActivityLobbyMessageOf<"join">,
  env: ActivityEnv,
): Step {
  const answer = reply({ lobby: env.ctx.key });
  const known = findPlayer(state, message.player.id);
  if (known !== undefined) return withEffects(rejoin(state, known, env), answer);
  if (state.stage.phase === "started") return refuse(state, "FULL", `${env.ctx.key} has started`);
  const most = capacity(state.settings);
  if (state.players.length >= most) return refuse(state, "FULL", `${env.ctx.key} has ${most} players`);
  const joiner: ActivityPlayer = {
    id: message.player.id,
    name: message.player.name,
    vehicle: message.vehicle ?? null,
    ready: false,
    connected: true,
  };
  const next: ActivityLobbyState = { ...state, players: [...state.players, joiner] };
  const effects = [...welcome(next, joiner.id, env.ctx.now), ...pushTo(everyone(state), playerAdded(joiner))];
  return withEffects(
    andThen({ state: next, effects }, (s) => syncCountdown(s, env.ctx.now)),
    answer,
  );
}

/** Why a player leaves: it (or its gateway) asked to, or its grace ran out. */
export type DepartureCause = "leave" | "grace";

/**
 * Takes a player out. While waiting, everyone hears PLAYER_REMOVED (the leaver included) and the
 * countdown follows (it pauses below the minimum). Once started the lobby only sees players off, so a
 * departure is silent. The last player out closes the lobby. A player not in the lobby changes nothing.
 */
export function depart(state: ActivityLobbyState, id: string, cause: DepartureCause, env: ActivityEnv): Step {
  const player = findPlayer(state, id);
  if (player === undefined) return { state, effects: [] };
  // A fired grace timer is gone already; any other way out leaves it armed.
  const effects: Effect[] = !player.connected && cause !== "grace" ? [cancelGrace(id)] : [];
  if (state.stage.phase === "waiting") effects.push(...pushTo(everyone(state), playerRemoved(id)));
  const next: ActivityLobbyState = { ...state, players: state.players.filter((p) => p.id !== id) };
  if (next.players.length === 0) return { state: next, effects: [...effects, { type: "stop" }] };
  return andThen({ state: next, effects }, (s) => syncCountdown(s, env.ctx.now));
}

/** A player leaves; leaving a lobby one is not in is a success that changes nothing. */
export function leave(
  state: ActivityLobbyState,
  message: ActivityLobbyMessageOf<"leave">,
  env: ActivityEnv,
): Step {
  return withEffects(depart(state, message.player, "leave", env), reply());
}

/**
 * A player is ready or no longer ready: everyone hears PLAYER_READY / PLAYER_NOT_READY, and the
 * countdown drops to `startDelay` if that made everyone ready. Setting the flag it has changes nothing;
 * after the start, ready states no longer matter.
 */
export function setReady(
  state: ActivityLobbyState,
  message: ActivityLobbyMessageOf<"ready">,
  env: ActivityEnv,
): Step {
  const player = findPlayer(state, message.player);
  if (player === undefined)
    return refuse(state, "NOT_IN_LOBBY", `${message.player} is not in ${env.ctx.key}`);
  if (state.stage.phase === "started" || player.ready === message.ready) return { state, effects: [reply()] };
  const next = updatePlayer(state, player.id, { ready: message.ready });
  const effects = pushTo(everyone(next), playerReadiness(player.id, message.ready));
  return withEffects(
    andThen({ state: next, effects }, (s) => syncCountdown(s, env.ctx.now)),
    reply(),
  );
}
