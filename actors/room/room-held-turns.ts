import { pushTo, andThen, refuse, reply, type ActorContext } from "../runtime/index.ts";
import { turnFrame } from "./room-frames.ts";
import { roomLimits } from "./room-limits.ts";
import type { RoomMessageOf } from "./room-messages.ts";
import { tryRecover } from "./room-recovery.ts";
import { reportDesync } from "./room-relay.ts";
import type { RoomState, SentTurn } from "./room-state.ts";
import { seatOf } from "./room-state.ts";
import type { Step } from "./room-transition.ts";
import { notSeated, refuseUnlessPlaying, unchanged, withEffects } from "./room-transition.ts";
import { turnsAfter } from "./room-window.ts";

/**
 * Turns a player did not get, in both directions: a player that came back asks for the turns after the
 * last one it holds (`turns`), and after a failover every seat sends the room the turns it holds after
 * the snapshot (`heldTurns`, answering `turnsWanted`).
 */

/**
 * Sends a player that came back every turn after `after` the room's window still holds, in order; when
 * the window no longer reaches back that far, `turnsGone { from, to }` first names the turns it lost.
 * Answers the last turn sent.
 */
export function catchUp(state: RoomState, message: RoomMessageOf<"turns">): Step {
  if (seatOf(state, message.player) === undefined) return notSeated(state, message.player);
  const notPlaying = refuseUnlessPlaying(state);
  if (notPlaying) return notPlaying;
  if (message.after > state.lastTurn) {
    return refuse(state, "INVALID", `turn ${message.after} has not been sent yet`);
  }
  const { turns, gone } = turnsAfter(state, message.after);
  const to = [message.player];
  const lost = gone === null ? [] : pushTo(to, { type: "turnsGone", ...gone });
  return {
    state,
    effects: [...lost, ...turns.flatMap((t) => pushTo(to, turnFrame(t))), reply({ turn: state.lastTurn })],
  };
}

function sameTurn(a: SentTurn, b: SentTurn): boolean {
  if (a.commands.length !== b.commands.length || a.ai.join() !== b.ai.join()) return false;
  return a.commands.every((c, i) => {
    const d = b.commands[i];
    if (c.side !== d?.side) return false;
    if (typeof c.data === "string" || typeof d.data === "string") return c.data === d.data;
    return c.data.byteLength === d.data.byteLength && c.data.every((byte, j) => byte === d.data[j]);
  });
}

/**
 * A seat's batch of the turns it holds after a failover. Batches continue where the seat's last one ended
 * and hold consecutive turns. The first copy of a turn is kept; a later copy that differs is reported as
 * `desync` for that turn. The seat's last batch (`done`) may let the clock resume.
 */
export function heldTurns(state: RoomState, message: RoomMessageOf<"heldTurns">, ctx: ActorContext): Step {
  const seat = seatOf(state, message.player);
  if (seat === undefined) return notSeated(state, message.player);
  const { clock, recovery } = state;
  if (clock.status !== "paused" || clock.reason !== "restored" || recovery?.reason !== "failover") {
    return refuse(state, "INVALID", `room ${state.code} is not waiting for turns`);
  }
  const prior = recovery.reports.find((r) => r.side === seat.seat);
  if (prior?.complete === true) return unchanged(state);
  const progress = prior?.lastTurn ?? recovery.fromTurn;
  if (message.after !== progress) {
    return refuse(state, "INVALID", `expected the turns after ${progress}, not after ${message.after}`);
  }
  if (message.turns.some((t, i) => t.turn !== progress + 1 + i)) {
    return refuse(state, "INVALID", `turns must follow each other from ${progress + 1}`);
  }
  const lastTurn = progress + message.turns.length;
  if (lastTurn - recovery.fromTurn > roomLimits.catchUpTurnsKept) {
    return refuse(state, "INVALID", `at most ${roomLimits.catchUpTurnsKept} turns after the snapshot`);
  }
  const known = new Map(recovery.turns.map((t) => [t.turn, t]));
  const conflicts: [number, number[]][] = [];
  for (const t of message.turns) {
    const first = known.get(t.turn);
    if (first === undefined) known.set(t.turn, { ...t, side: seat.seat });
    else if (!sameTurn(first, t)) conflicts.push([t.turn, [first.side, seat.seat]]);
  }
  const report = { side: seat.seat, lastTurn, digest: null, complete: message.done };
  const next: RoomState = {
    ...state,
    recovery: {
      ...recovery,
      reports: [...recovery.reports.filter((r) => r.side !== seat.seat), report],
      turns: [...known.values()].sort((a, b) => a.turn - b.turn),
    },
  };
  let step: Step = { state: next, effects: [] };
  for (const [turn, sides] of conflicts) step = andThen(step, (s) => reportDesync(s, turn, sides));
  const recovered = message.done ? tryRecover(step.state, ctx) : undefined;
  return recovered
    ? withEffects(
        andThen(step, () => recovered),
        reply(),
      )
    : withEffects(step, reply());
}
