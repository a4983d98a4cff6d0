import type { ActorContext, Restored, TimerFired } from "../runtime/index.ts";
import { sendTurn, turnTimerName } from "./room-clock.ts";
import { leaveSeat } from "./room-departures.ts";
import { catchUp, heldTurns } from "./room-held-turns.ts";
import { abort, end, finish } from "./room-ending.ts";
import type { RoomMessage, RoomMessageOf } from "./room-messages.ts";
import { resume, connection } from "./room-presence.ts";
import { restored, turnsReport } from "./room-recovery.ts";
import { chat, checksum, command } from "./room-relay.ts";
import { join, ready, setAi, setup } from "./room-setup.ts";
import { seatOf, type RoomState } from "./room-state.ts";
import type { Step } from "./room-transition.ts";

/** The relay room's transition function (SPEC §5): one message in, the next state and its effects out. */
export function handleRoom(
  state: RoomState,
  message: RoomMessage | TimerFired | Restored,
  ctx: ActorContext,
): Step {
  switch (message.type) {
    case "end":
      return end(state);
    case "leaveSeat":
      return leaveSeat(state, message, ctx);
    case "finish":
      return finish(state, message);
    case "join":
      return rejoinOrJoin(state, message, ctx);
    case "setAi":
      return setAi(state, message);
    case "ready":
      return ready(state, message, ctx);
    case "setup":
      return setup(state, message);
    case "command":
      return command(state, message);
    case "checksum":
      return checksum(state, message);
    case "chat":
      return chat(state, message);
    case "resume":
      return resume(state, message, ctx);
    case "abort":
      return abort(state, message);
    case "connection":
      return connection(state, message, ctx);
    case "turns":
      return catchUp(state, message);
    case "heldTurns":
      return heldTurns(state, message, ctx);
    case "turnsReport":
      return turnsReport(state, message, ctx);
    case "restored":
      return restored(state, message, ctx);
    case "timer":
      return message.name === turnTimerName ? sendTurn(state, ctx) : { state, effects: [] };
  }
}

/**
 * A join by a player who holds a seat but whose connection was lost (a fresh login that did not resume)
 * is that player coming back: the seat is connected again before the room is sent.
 */
function rejoinOrJoin(state: RoomState, message: RoomMessageOf<"join">, ctx: ActorContext): Step {
  const seat = seatOf(state, message.player.id);
  if (seat === undefined || seat.connected) return join(state, message);
  const back = connection(state, { type: "connection", player: message.player.id, connected: true }, ctx);
  const effects = back.effects.filter((e) => e.type !== "reply");
  return { ...back, effects: [...effects, { type: "reply", value: { room: state.code, side: seat.seat } }] };
}
