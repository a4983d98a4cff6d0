import { stops, andThen, withEffects, type Effect, type Transition } from "../runtime/index.ts";
import { playerKey, roomKey } from "../common/index.ts";
import { pushState } from "./lobby-frames.ts";
import type { LobbyState } from "./lobby-state.ts";
import { findMember, roomRunning } from "./lobby-state.ts";
import { cancelGrace } from "./lobby-timers.ts";
import { nextHost } from "./members.ts";
import type { LobbyEnv } from "./lobby-env.ts";

/** Members leaving the lobby, for whatever reason: the one place that moves the host and closes a lobby. */

/** Why a member leaves: it asked to, its grace ran out, or the room it could no longer rejoin ended. */
export type DepartureCause = "leave" | "grace" | "roomEnded";

/**
 * Takes a member out (no push: the caller pushes once after all its changes). Tells the player registry,
 * hands the host role on, frees the member's seat in a running room; the last member out closes the
 * lobby and ends a running room. A non-member changes nothing.
 */
export function removeMember(
  state: LobbyState,
  player: string,
  cause: DepartureCause,
  env: LobbyEnv,
): Transition<LobbyState> {
  const member = findMember(state, player);
  // Not (or no longer) a member: the registry driving a move still hears that the player is out.
  if (member === undefined) {
    const confirm = { type: "left", lobby: env.ctx.key };
    return {
      state,
      effects: cause === "leave" ? [{ type: "tell", to: playerKey(player), message: confirm }] : [],
    };
  }
  const members = state.members.filter((m) => m.player !== player);
  const effects: Effect[] = [];
  // A fired grace timer is gone already; any other way out leaves it armed — an away member's grace, or
  // a connected member's arrival window after a migration (lobby-connection.ts, `restored`).
  if (cause !== "grace") effects.push(cancelGrace(player));
  effects.push({ type: "tell", to: playerKey(player), message: { type: "left", lobby: env.ctx.key } });
  const running = state.room !== null && roomRunning(state) ? state.room : null;
  if (members.length === 0) {
    if (running !== null) effects.push({ type: "tell", to: roomKey(running.code), message: { type: "end" } });
    effects.push({ type: "stop" });
    return { state: { ...state, members, host: null }, effects };
  }
  if (running !== null && member.inRoom) {
    effects.push({ type: "tell", to: roomKey(running.code), message: { type: "leaveSeat", player } });
  }
  const host = state.host === player ? nextHost(members) : state.host;
  return { state: { ...state, members, host }, effects };
}

/**
 * Members who dropped during the room and are still away leave when the room ends: there is no room
 * left for them to rejoin. The room must already be marked ended, so no seat is freed in it.
 */
export function dropAbsentPlayers(state: LobbyState, env: LobbyEnv): Transition<LobbyState> {
  const absent = state.members.filter((m) => m.inRoom && !m.connected).map((m) => m.player);
  return absent.reduce<Transition<LobbyState>>(
    (step, player) => andThen(step, (s) => removeMember(s, player, "roomEnded", env)),
    { state, effects: [] },
  );
}

/** Removes a member and, unless that closed the lobby, sends the others the new state. */
export function departAndPush(
  state: LobbyState,
  player: string,
  cause: DepartureCause,
  env: LobbyEnv,
): Transition<LobbyState> {
  const step = removeMember(state, player, cause, env);
  return step.state === state || stops(step) ? step : withEffects(step, pushState(step.state));
}
