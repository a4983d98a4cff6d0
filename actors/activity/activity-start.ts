import { drawCode, roomKey, type RoomInit, type Seat } from "../common/index.ts";
import { andThen, stops, withEffects, type Effect, type Random } from "../runtime/index.ts";
import type { ActivityEnv, Step } from "./activity-env.ts";
import { phase, pushTo } from "./activity-frames.ts";
import { everyone, type ActivityLobbyState, type Transfer } from "./activity-lobby-state.ts";
import { depart } from "./activity-membership.ts";
import { transferTimerName } from "./activity-timers.ts";
import { countdownTimerName, syncCountdown } from "./countdown.ts";
import { makesTeam, transferPush } from "./transfer-push.ts";

/**
 * The countdown at 0: every player of the lobby who is there goes to one new room, with a token of its
 * own; players away on their grace are not seated and leave.
 */

/** How soon a start the node could not take is tried again; the countdown stays at 0 meanwhile. */
export const startRetryMs = 1000;

const tokenAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/** 24 characters of 62: about 143 bits, from the node's cryptographic random source. */
const tokenLength = 24;

function drawToken(random: Random): string {
  let token = "";
  for (let i = 0; i < tokenLength; i++) token += tokenAlphabet.charAt(random.int(tokenAlphabet.length));
  return token;
}

/**
 * The seats of the match, in join order with seat ids 1, 2, 3…: one team (0) when the players are made a
 * team or there is one player, otherwise each player on a team of its own.
 */
export function activitySeats(transfers: readonly Transfer[]): Seat[] {
  const teamed = transfers.length === 1 || makesTeam(transfers.length);
  return transfers.map((t, i) => ({ seat: i + 1, team: teamed ? 0 : i, player: t.player }));
}

/**
 * Players away on their grace at 0 leave, as a leave would take them out: everyone hears PLAYER_REMOVED
 * and the countdown follows the count. This is a step of its own, before the start's, because a start
 * whose room cannot be created sends none of its frames, and these must be heard either way. With the
 * minimum still there the countdown timer is armed again at its deadline, already due, so the start
 * follows at once; below it the countdown pauses at 0, and the last player out closes the lobby.
 */
function awayLeave(state: ActivityLobbyState, away: readonly string[], env: ActivityEnv): Step {
  let step: Step = { state, effects: [] };
  for (const id of away) {
    if (stops(step)) return step;
    step = andThen(step, (s) => depart(s, id, "leave", env));
  }
  const { stage } = step.state;
  if (stops(step) || stage.phase !== "waiting" || !stage.countdown.running) return step;
  return withEffects(step, {
    type: "timer",
    name: countdownTimerName,
    at: stage.countdown.deadline,
    kind: "game",
  });
}

/**
 * The countdown timer fired. With a room to be had, players away on their grace leave first (above);
 * then the room is spawned for every player (host: the first in join order), each player is sent its
 * transfer, and the lobby waits `transferSeconds` for them to load into it. A node that cannot open a
 * room now (full, draining) holds the countdown at 0 and tries again shortly, with everyone still listed.
 */
export function countdownFired(state: ActivityLobbyState, env: ActivityEnv): Step {
  const { ctx, options } = env;
  if (state.stage.phase !== "waiting" || !state.stage.countdown.running) return { state, effects: [] };
  const { deadline } = state.stage.countdown;
  const rearm = (at: number): Step => ({
    state,
    effects: [{ type: "timer", name: countdownTimerName, at, kind: "game" }],
  });
  // A fire before the deadline (not one the runtime sends) keeps the deadline.
  if (deadline > ctx.now) return rearm(deadline);
  if (!ctx.node.canOpenRoom || ctx.node.draining) return rearm(ctx.now + startRetryMs);
  const away = state.players.filter((p) => !p.connected).map((p) => p.id);
  if (away.length > 0) return awayLeave(state, away, env);
  const host = state.players[0];
  if (host === undefined) return { state, effects: [] };
  const code = drawCode(ctx.random, options.roomCodeLength, options.roomCodeAlphabet);
  const transfers = state.players.map((p) => ({ player: p.id, token: drawToken(ctx.random) }));
  const init: RoomInit = {
    code,
    lobby: ctx.key,
    mode: state.settings.id,
    host: host.id,
    seats: activitySeats(transfers),
    // The room seats each player only when it arrives with its own token (and then tells this lobby).
    tokens: Object.fromEntries(transfers.map((t) => [t.player, t.token])),
  };
  const next: ActivityLobbyState = { ...state, stage: { phase: "started", room: code, transfers } };
  return {
    state: next,
    effects: [
      { type: "spawn", key: roomKey(code), init, quietIfFailed: true },
      ...state.players.flatMap((p) => transferPush(next, p.id)),
      { type: "timer", name: transferTimerName, at: ctx.now + options.transferSeconds * 1000, kind: "game" },
    ],
  };
}

/** The transfer window is over: players who have not loaded into the room by now lose their place. */
export function transferEnded(state: ActivityLobbyState): Step {
  return state.stage.phase === "started" ? { state, effects: [{ type: "stop" }] } : { state, effects: [] };
}

/** The room reports its match is over: a started lobby has nobody left to see off. */
export function roomEnded(state: ActivityLobbyState, room: string): Step {
  if (state.stage.phase !== "started" || state.stage.room !== room)
    return { state, effects: [{ type: "reply" }] };
  return { state, effects: [{ type: "reply" }, { type: "stop" }] };
}

/**
 * The room of the start could not be created (the store refused it, or its code was taken), and the
 * runtime said so before any transfer went out: the lobby is waiting again with its countdown at
 * `startRetryMs`, and starts again then with a new room and new tokens (paused instead if players left
 * below the minimum meanwhile). The directory was told the lobby closed, which stays so: it starts with
 * the players it has.
 */
export function roomSpawnFailed(state: ActivityLobbyState, key: string, env: ActivityEnv): Step {
  if (state.stage.phase !== "started" || roomKey(state.stage.room) !== key) return { state, effects: [] };
  const deadline = env.ctx.now + startRetryMs;
  const waiting: ActivityLobbyState = {
    ...state,
    stage: { phase: "waiting", countdown: { running: true, deadline } },
  };
  const synced = syncCountdown(waiting, env.ctx.now);
  const effects: Effect[] = [
    { type: "cancelTimer", name: transferTimerName },
    { type: "timer", name: countdownTimerName, at: deadline, kind: "game" },
    ...pushTo(everyone(waiting), phase("PHASE_WAIT_READY", startRetryMs)),
  ];
  return { state: synced.state, effects: [...effects, ...synced.effects] };
}
