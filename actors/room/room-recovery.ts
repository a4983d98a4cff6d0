import {
  pushTo,
  andThen,
  refuse,
  reply,
  type ActorContext,
  type Effect,
  type Restored,
} from "../runtime/index.ts";
import { pauseClock, resumeClock } from "./room-clock.ts";
import { pushRoom, roomFrame, turnFrame } from "./room-frames.ts";
import type { RoomMessageOf } from "./room-messages.ts";
import { reportDesync } from "./room-relay.ts";
import type { Recovery, RoomState } from "./room-state.ts";
import { humanSeats, seatOf } from "./room-state.ts";
import type { Step } from "./room-transition.ts";
import { notSeated, withEffects } from "./room-transition.ts";
import { keepWindow, turnsAfter } from "./room-window.ts";

/**
 * After a restore on a new node (FLEET-PROTOCOL, Rooms). The snapshot knows the turns up to `fromTurn`;
 * after a failover the old owner may have sent later ones. The clock stays paused until every human
 * seat is back or handed to AI and, after a failover, has reported the last turn it holds
 * (`turnsReport`). It then resumes at max(fromTurn, every lastTurn) + 1, so no turn number is sent twice.
 * After a failover the room asks every seat for the turns it holds after `fromTurn` (`turnsWanted`,
 * answered by the SDK with `heldTurns`); the copies of a turn must agree, or it is reported as a desync.
 * Before resuming, each seat is sent the collected turns it lacks.
 */

/** Human seats that have not reported since the restore. */
export function unreported(state: RoomState, recovery: Recovery): string[] {
  const reported = new Set(recovery.reports.flatMap((r) => (r.complete ? [r.side] : [])));
  return humanSeats(state).flatMap((s) => (reported.has(s.seat) || s.player === null ? [] : [s.player]));
}

/** Sides that hold the same last turn but different digests: their copies of the match disagree. */
function disagreements(recovery: Recovery): [number, number[]][] {
  const byTurn = new Map<number, { digests: Set<string>; sides: number[] }>();
  for (const r of recovery.reports) {
    if (r.digest === null) continue;
    const group = byTurn.get(r.lastTurn) ?? { digests: new Set(), sides: [] };
    group.digests.add(r.digest);
    group.sides.push(r.side);
    byTurn.set(r.lastTurn, group);
  }
  return [...byTurn].flatMap(([turn, g]) =>
    g.digests.size > 1 ? [[turn, g.sides] as [number, number[]]] : [],
  );
}

/** The clock resumes if the restore has everything it waits for; undefined while it still waits. */
export function tryRecover(state: RoomState, ctx: ActorContext): Step | undefined {
  const { clock, recovery } = state;
  if (clock.status !== "paused" || clock.reason !== "restored" || recovery === null) return undefined;
  if (humanSeats(state).some((s) => !s.connected)) return undefined;
  if (recovery.reason === "failover" && unreported(state, recovery).length > 0) return undefined;
  const lastTurn = Math.max(recovery.fromTurn, ...recovery.reports.map((r) => r.lastTurn));
  const collected = recovery.turns
    .filter((t) => t.turn > recovery.fromTurn)
    .map((t) => ({ turn: t.turn, commands: t.commands, ai: t.ai }));
  const caughtUp: RoomState = {
    ...state,
    lastTurn,
    recentTurns: keepWindow(
      state.recentTurns.filter((t) => t.turn <= recovery.fromTurn),
      ...collected,
    ),
  };
  let step: Step = { state: caughtUp, effects: sendLacking(caughtUp, recovery) };
  for (const [turn, sides] of disagreements(recovery))
    step = andThen(step, (s) => reportDesync(s, turn, sides));
  return andThen(step, (s) => resumeClock(s, ctx));
}

/** Every reporting seat gets the turns it lacks up to the last one, so every copy ends at the same turn. */
function sendLacking(state: RoomState, recovery: Recovery): Effect[] {
  return recovery.reports.flatMap((r) => {
    const player = state.seats.find((s) => s.seat === r.side)?.player ?? null;
    if (player === null || r.lastTurn >= state.lastTurn) return [];
    const { turns, gone } = turnsAfter(state, r.lastTurn);
    const lost = gone === null ? [] : pushTo([player], { type: "turnsGone", ...gone });
    return [...lost, ...turns.flatMap((t) => pushTo([player], turnFrame(t)))];
  });
}

/**
 * Asks these players for the turns they hold after the restore's `fromTurn` (or after what they already
 * sent), while a failover waits for them.
 */
export function askForTurns(state: RoomState, players: readonly string[]): Effect[] {
  const { clock, recovery } = state;
  if (clock.status !== "paused" || clock.reason !== "restored" || recovery?.reason !== "failover") return [];
  const waiting = new Set(unreported(state, recovery));
  return players.flatMap((player) => {
    const seat = seatOf(state, player);
    if (seat === undefined || !waiting.has(player)) return [];
    const partial = recovery.reports.find((r) => r.side === seat.seat);
    return pushTo([player], { type: "turnsWanted", after: partial?.lastTurn ?? recovery.fromTurn });
  });
}

/**
 * The room runs on a new node. Humans whose sessions are not here are missing until the gateway says
 * otherwise. After a failover the queued commands are dropped: the old owner may have sent them in a
 * turn after its snapshot (a command is acknowledged by its turn, never by a write). A migration's
 * snapshot is the old owner's last state, so nothing needs reporting.
 */
export function restored(state: RoomState, message: Restored, ctx: ActorContext): Step {
  const here = new Set(message.connected);
  const seats = state.seats.map((s) => (s.player === null ? s : { ...s, connected: here.has(s.player) }));
  const moved: RoomState = { ...state, seats };
  if (state.phase !== "playing") {
    return {
      state: moved,
      effects: pushTo(
        message.connected.filter((p) => seatOf(moved, p) !== undefined),
        roomFrame(moved),
      ),
    };
  }
  const failover = message.reason === "failover";
  const next: RoomState = {
    ...moved,
    queue: failover ? [] : moved.queue,
    recovery: { reason: message.reason, fromTurn: state.lastTurn, reports: [], turns: [] },
  };
  // A lobby's room: its members' sessions are at the lobby's node, which may not be this one (each key
  // is placed on its own). The lobby says which of them are back (`connection`).
  const lobby: Effect[] =
    state.lobby?.startsWith("lobby/") === true
      ? [{ type: "tell", to: state.lobby, message: { type: "roomRestored", room: state.code } }]
      : [];
  const paused = andThen(pauseClock(next, "restored"), (s) => ({
    state: s,
    effects: [...pushRoom(s), ...askForTurns(s, message.connected), ...lobby],
  }));
  const recovered = tryRecover(paused.state, ctx);
  return recovered ? { state: recovered.state, effects: [...paused.effects, ...recovered.effects] } : paused;
}

/** A seat reports the last turn it holds after a failover; the last report lets the clock resume. */
export function turnsReport(
  state: RoomState,
  message: RoomMessageOf<"turnsReport">,
  ctx: ActorContext,
): Step {
  const seat = seatOf(state, message.player);
  if (seat === undefined) return notSeated(state, message.player);
  const { clock, recovery } = state;
  if (clock.status !== "paused" || clock.reason !== "restored" || recovery === null) {
    return refuse(state, "INVALID", `room ${state.code} is not waiting for turn reports`);
  }
  const report = { side: seat.seat, lastTurn: message.lastTurn, digest: message.digest, complete: true };
  const reports = [...recovery.reports.filter((r) => r.side !== seat.seat), report];
  const next: RoomState = { ...state, recovery: { ...recovery, reports } };
  const recovered = tryRecover(next, ctx);
  return recovered ? withEffects(recovered, reply()) : { state: next, effects: [reply()] };
}
