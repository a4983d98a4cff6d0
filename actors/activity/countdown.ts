import type { Effect } from "../runtime/index.ts";
import { phase, pushTo, type ActivityFrame } from "./activity-frames.ts";
import type { Step } from "./activity-env.ts";
import type { ActivityLobbyState, Countdown } from "./activity-lobby-state.ts";
import { everyone } from "./activity-lobby-state.ts";
import { minimum } from "./activity-settings.ts";

/**
 * The countdown of SPEC §2: it runs only while the lobby has its minimum, pauses (keeping the time it has
 * left) when players leave below it, and drops to `startDelay` once everyone is ready. It is an absolute
 * deadline while it runs, so a failover never lengthens it.
 */

/** The name of the game timer that fires when the countdown reaches 0. */
export const countdownTimerName = "countdown";

/** Milliseconds from seconds as the settings write them. */
export function msOf(seconds: number): number {
  return Math.round(seconds * 1000);
}

/** The time the countdown has left at `now`. */
export function timeLeft(countdown: Countdown, now: number): number {
  return countdown.running ? Math.max(0, countdown.deadline - now) : countdown.remainingMs;
}

/**
 * What a player joining or coming back is told of the countdown, after the lobby's players: the time left
 * of a running one (PHASE_WAIT_READY), or the time kept by a paused one (PHASE_WAIT_PAUSED, as the others
 * heard when it paused), so every player sees the same clock. A countdown still at the full `waitTime`
 * never ran (or paused the moment it started): nothing to tell, as in a new lobby. Nor when the lobby
 * has its minimum with the countdown held: the join's own sync starts it and tells everyone.
 */
export function countdownLine(state: ActivityLobbyState, now: number): ActivityFrame | null {
  if (state.stage.phase !== "waiting") return null;
  const { countdown } = state.stage;
  if (countdown.running) return phase("PHASE_WAIT_READY", timeLeft(countdown, now));
  const paused =
    countdown.remainingMs < msOf(state.settings.waitTime) && state.players.length < minimum(state.settings);
  return paused ? phase("PHASE_WAIT_PAUSED", countdown.remainingMs) : null;
}

/** A new lobby's countdown: held at `waitTime` until the minimum is there. */
export function initialCountdown(waitTimeSeconds: number): Countdown {
  return { running: false, remainingMs: msOf(waitTimeSeconds) };
}

function armCountdown(deadline: number): Effect {
  return { type: "timer", name: countdownTimerName, at: deadline, kind: "game" };
}

function withCountdown(state: ActivityLobbyState, countdown: Countdown): ActivityLobbyState {
  return { ...state, stage: { phase: "waiting", countdown } };
}

/**
 * Brings the countdown in line with the lobby after any change of its players or their ready states:
 * starts (or resumes) it at the minimum, pauses it below, and cuts it to `startDelay` when everyone is
 * ready. Each change is announced to everyone still in the lobby. A started lobby has no countdown.
 */
export function syncCountdown(state: ActivityLobbyState, now: number): Step {
  if (state.stage.phase !== "waiting" || state.players.length === 0) return { state, effects: [] };
  const { countdown } = state.stage;
  const enough = state.players.length >= minimum(state.settings);
  if (countdown.running && !enough) {
    const remainingMs = timeLeft(countdown, now);
    return {
      state: withCountdown(state, { running: false, remainingMs }),
      effects: [
        { type: "cancelTimer", name: countdownTimerName },
        ...pushTo(everyone(state), phase("PHASE_WAIT_PAUSED", remainingMs)),
      ],
    };
  }
  if (!countdown.running && enough) {
    const deadline = now + countdown.remainingMs;
    const started = withCountdown(state, { running: true, deadline });
    const effects = [
      armCountdown(deadline),
      ...pushTo(everyone(state), phase("PHASE_WAIT_READY", countdown.remainingMs)),
    ];
    const cut = cutIfAllReady(started, now);
    return { state: cut.state, effects: [...effects, ...cut.effects] };
  }
  return cutIfAllReady(state, now);
}

/**
 * With the countdown running (so the minimum is there) and everyone ready, the time left drops to
 * `startDelay`; a countdown already at or below it is left alone.
 */
function cutIfAllReady(state: ActivityLobbyState, now: number): Step {
  if (state.stage.phase !== "waiting" || !state.stage.countdown.running) return { state, effects: [] };
  if (!state.players.every((p) => p.ready)) return { state, effects: [] };
  const delay = msOf(state.settings.startDelay);
  if (timeLeft(state.stage.countdown, now) <= delay) return { state, effects: [] };
  const deadline = now + delay;
  return {
    state: withCountdown(state, { running: true, deadline }),
    effects: [armCountdown(deadline), ...pushTo(everyone(state), phase("PHASE_WAIT_START", delay))],
  };
}
