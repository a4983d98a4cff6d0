import { reply, withEffects, type Effect, type Restored } from "../runtime/index.ts";
import type { ActivityEnv, Step } from "./activity-env.ts";
import type { ActivityLobbyMessageOf } from "./activity-lobby-messages.ts";
import type { ActivityLobbyState } from "./activity-lobby-state.ts";
import { findPlayer, updatePlayer } from "./activity-lobby-state.ts";
import { armGrace, cancelGrace } from "./activity-timers.ts";
import { depart, resync } from "./activity-membership.ts";

/** Sessions dropping and coming back: a dropped player keeps its place for the grace, then leaves. */

/**
 * The gateway reports a player's session dropping or coming back. A drop arms the grace (the others hear
 * nothing: the player still counts); with a grace of 0 the player leaves at once, as in the seed. A
 * return cancels the grace and sends the player its full picture. Unknown players change nothing.
 */
export function connection(
  state: ActivityLobbyState,
  message: ActivityLobbyMessageOf<"connection">,
  env: ActivityEnv,
): Step {
  const { player: id, connected } = message;
  const player = findPlayer(state, id);
  if (player === undefined) return { state, effects: [reply()] };
  if (connected) {
    if (player.connected) return { state, effects: [...resync(state, id, env), reply()] };
    const next = updatePlayer(state, id, { connected: true });
    return { state: next, effects: [cancelGrace(id), ...resync(next, id, env), reply()] };
  }
  if (!player.connected) return { state, effects: [reply()] };
  if (env.options.graceSeconds === 0) return withEffects(depart(state, id, "leave", env), reply());
  const next = updatePlayer(state, id, { connected: false });
  return { state: next, effects: [armGrace(id, env.ctx.now, env.options.graceSeconds), reply()] };
}

/** A grace ran out: the player, still away, leaves. A timer that fired after it came back is stale. */
export function graceExpired(state: ActivityLobbyState, id: string, env: ActivityEnv): Step {
  if (findPlayer(state, id)?.connected !== false) return { state, effects: [] };
  return depart(state, id, "grace", env);
}

/**
 * After a failover or migration: players whose sessions are here are back and get their full picture
 * under the new owner's epoch; players who were connected and are not here get `restoreGraceSeconds` to
 * return (the system caused the drop); players already away keep the grace they had left, which did
 * not run while the lobby was being restored. The countdown needs nothing: its deadline is absolute.
 */
export function restored(state: ActivityLobbyState, message: Restored, env: ActivityEnv): Step {
  const here = new Set(message.connected);
  const effects: Effect[] = [];
  let next = state;
  for (const player of state.players) {
    if (here.has(player.id) && !player.connected) {
      next = updatePlayer(next, player.id, { connected: true });
      effects.push(cancelGrace(player.id));
    } else if (!here.has(player.id) && player.connected) {
      next = updatePlayer(next, player.id, { connected: false });
      effects.push(armGrace(player.id, env.ctx.now, env.options.restoreGraceSeconds));
    }
  }
  const pictures = next.players.filter((p) => here.has(p.id)).flatMap((p) => resync(next, p.id, env));
  return { state: next, effects: [...effects, ...pictures] };
}
