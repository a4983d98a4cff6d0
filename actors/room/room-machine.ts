import { refuse, type ActorContext, type Effect, type Restored, type TimerFired } from "../runtime/index.ts";
import { sendTurn, turnTimerName } from "./room-clock.ts";
import { leaveSeat } from "./room-departures.ts";
import { catchUp, heldTurns } from "./room-held-turns.ts";
import { abort, closeRoom, end, finish } from "./room-ending.ts";
import { blobOf } from "./room-blob.ts";
import type { RoomMessage, RoomMessageOf } from "./room-messages.ts";
import { resume, connection } from "./room-presence.ts";
import { restored, turnsReport } from "./room-recovery.ts";
import { chat, checksum, command } from "./room-relay.ts";
import { join, ready, setAi, setup } from "./room-setup.ts";
import { seatOf, type RoomState } from "./room-state.ts";
import { type Step } from "./room-transition.ts";

/** The relay room's transition function (SPEC §5): one message in, the next state and its effects out. */
export function handleRoom(
  state: RoomState,
  message: RoomMessage | TimerFired | Restored,
  ctx: ActorContext,
): Step {
  const unarrived = refuseUnarrived(state, message);
  if (unarrived) return unarrived;
  switch (message.type) {
    case "end":
      return end(state);
    case "serverEnd":
      // Like a player's finish: the lobby that started the room is told, and brings everyone back.
      return closeRoom(state);
    case "status":
      // A room that ended has stopped (its key answers NOT_FOUND); one that answers runs.
      return { state, effects: [{ type: "reply", value: { room: state.code, phase: state.phase } }] };
    case "leaveSeat":
      return leaveSeat(state, message, ctx);
    case "finish":
      return finish(state, message);
    case "blob":
      return blobOf(state, message.player);
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
    case "listingCheck":
      // The kind adds the listing (room-listing.ts): nothing changes here.
      return { state, effects: [] };
  }
}

/**
 * A seated player an activity lobby sent here, asking anything but to join (with its token) before it
 * arrived, is refused: without its token it cannot take the seat. The lobby's and the gateway's own news
 * about it (`leaveSeat`, `connection`) are not requests of the player and pass.
 */
function refuseUnarrived(state: RoomState, message: RoomMessage | TimerFired | Restored): Step | undefined {
  if (message.type === "join" || message.type === "connection" || message.type === "leaveSeat")
    return undefined;
  if (!("player" in message) || typeof message.player !== "string") return undefined;
  if (state.tokens[message.player] === undefined) return undefined;
  return refuse(state, "UNAUTHORIZED", `join room ${state.code} with your transfer token first`);
}

/**
 * A player an activity lobby sent here arrives: its token must be the one the lobby drew for it, and
 * then it has loaded into the room, so its lobby is told it left (SPEC §2). A wrong or missing token is
 * refused UNAUTHORIZED and changes nothing; a player with no token pending joins as before.
 */
function arrive(state: RoomState, message: RoomMessageOf<"join">): Step {
  const id = message.player.id;
  const expected = state.tokens[id];
  if (expected === undefined) return { state, effects: [] };
  if (message.token !== expected) {
    return refuse(state, "UNAUTHORIZED", `no valid transfer token for ${id} in room ${state.code}`);
  }
  const tokens = Object.fromEntries(Object.entries(state.tokens).filter(([player]) => player !== id));
  const effects: Effect[] =
    state.lobby === null ? [] : [{ type: "tell", to: state.lobby, message: { type: "leave", player: id } }];
  return { state: { ...state, tokens }, effects };
}

/**
 * A join by a player who holds a seat but whose connection was lost (a fresh login that did not resume)
 * is that player coming back: the seat is connected again before the room is sent.
 */
function rejoinOrJoin(before: RoomState, message: RoomMessageOf<"join">, ctx: ActorContext): Step {
  const arrived = arrive(before, message);
  if (arrived.effects.some((e) => e.type === "reject")) return arrived;
  const joined = seatedJoin(arrived.state, message, ctx);
  return { state: joined.state, effects: [...arrived.effects, ...joined.effects] };
}

function seatedJoin(state: RoomState, message: RoomMessageOf<"join">, ctx: ActorContext): Step {
  const seat = seatOf(state, message.player.id);
  if (seat === undefined || seat.connected) return join(state, message);
  const back = connection(state, { type: "connection", player: message.player.id, connected: true }, ctx);
  const effects = back.effects.filter((e) => e.type !== "reply");
  return { ...back, effects: [...effects, { type: "reply", value: { room: state.code, side: seat.seat } }] };
}
