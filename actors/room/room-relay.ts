import { pushTo, refuse, reply, type Effect } from "../runtime/index.ts";
import { pushToHumans } from "./room-frames.ts";
import { roomLimits } from "./room-limits.ts";
import type { RoomMessageOf } from "./room-messages.ts";
import type { RoomState } from "./room-state.ts";
import { humanSeats, seatOf, seatedPlayers } from "./room-state.ts";
import type { Step } from "./room-transition.ts";
import { notSeated, refuseUnlessPlaying, unchanged } from "./room-transition.ts";

/**
 * What the room relays during a match without reading it: commands into the next turn, checksums to the
 * other players (with one desync report per turn), chat. Commands and checksums are volatile: the turn
 * that carries a command is its acknowledgement, not a write.
 */

/** Queues a command for the next turn and answers the turn it goes out in (when that is known). */
export function command(state: RoomState, message: RoomMessageOf<"command">): Step {
  const seat = seatOf(state, message.player);
  if (seat === undefined) return notSeated(state, message.player);
  const notPlaying = refuseUnlessPlaying(state);
  if (notPlaying) return notPlaying;
  const queued = state.queue.filter((c) => c.side === seat.seat).length;
  if (queued >= roomLimits.maxCommandsPerSideAndTurn) {
    return refuse(
      state,
      "RATE_LIMITED",
      `at most ${roomLimits.maxCommandsPerSideAndTurn} commands per side and turn`,
      state.turnMs,
    );
  }
  const next: RoomState = { ...state, queue: [...state.queue, { side: seat.seat, data: message.data }] };
  // While a restore waits for the seats' reports, the turn the clock resumes at is not known yet.
  const restoring = state.clock.status === "paused" && state.clock.reason === "restored";
  return {
    state: next,
    effects: [restoring ? reply() : reply({ turn: state.lastTurn + 1 })],
    volatile: true,
  };
}

/**
 * Marks `turn` as out of sync and tells every human, unless it was already reported: a mismatch is
 * reported once per turn.
 */
export function reportDesync(state: RoomState, turn: number, sides: readonly number[]): Step {
  const record = state.checksums.find((r) => r.turn === turn);
  if (record?.desync === true) return { state, effects: [] };
  const marked = record ? { ...record, desync: true } : { turn, values: [], desync: true };
  const next: RoomState = { ...state, checksums: keepLatest([...without(state, turn), marked]) };
  const frame = { type: "desync", turn, sides: [...sides].sort((a, b) => a - b) };
  return { state: next, effects: pushToHumans(next, frame) };
}

function without(state: RoomState, turn: number): RoomState["checksums"] {
  return state.checksums.filter((r) => r.turn !== turn);
}

function keepLatest(records: RoomState["checksums"]): RoomState["checksums"] {
  return records.sort((a, b) => a.turn - b.turn).slice(-roomLimits.checksumTurnsKept);
}

/**
 * A checksum of a sent turn goes to the other humans. When the values for the turn disagree, every human
 * gets `desync { turn, sides }` once, naming the sides whose checksums had arrived: the room cannot tell
 * which copy is right, and the clients have every value from the forwarded checksums.
 */
export function checksum(state: RoomState, message: RoomMessageOf<"checksum">): Step {
  const seat = seatOf(state, message.player);
  if (seat === undefined) return notSeated(state, message.player);
  const notPlaying = refuseUnlessPlaying(state);
  if (notPlaying) return notPlaying;
  const { turn, value } = message;
  if (turn > state.lastTurn) return refuse(state, "INVALID", `turn ${turn} has not been sent yet`);
  const record = state.checksums.find((r) => r.turn === turn) ?? { turn, values: [], desync: false };
  if (record.values.some((v) => v.side === seat.seat)) return unchanged(state);
  const values = [...record.values, { side: seat.seat, value }];
  const recorded: RoomState = {
    ...state,
    checksums: keepLatest([...without(state, turn), { ...record, values }]),
  };
  const others = seatedPlayers(state).filter((p) => p !== message.player);
  const forward = pushTo(others, { type: "checksum", turn, side: seat.seat, value });
  const agree = values.every((v) => v.value === values[0]?.value);
  const sides = values.map((v) => v.side);
  const desync = agree ? { state: recorded, effects: [] } : reportDesync(recorded, turn, sides);
  return { state: desync.state, effects: [...forward, ...desync.effects, reply()], volatile: true };
}

/** Chat on `all` (every human) or `team` (the humans of the sender's team). */
export function chat(state: RoomState, message: RoomMessageOf<"chat">): Step {
  const seat = seatOf(state, message.player);
  if (seat === undefined) return notSeated(state, message.player);
  const to =
    message.channel === "all"
      ? seatedPlayers(state)
      : humanSeats(state).flatMap((s) => (s.team === seat.team && s.player !== null ? [s.player] : []));
  const frame = {
    type: "chat",
    channel: message.channel,
    side: seat.seat,
    player: message.player,
    text: message.text,
  };
  const effects: Effect[] = [...pushTo(to, frame), reply()];
  return { state, effects };
}
