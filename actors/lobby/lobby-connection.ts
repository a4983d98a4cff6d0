import { reply, withEffects, type Effect, type Restored, type Transition } from "../runtime/index.ts";
import { roomKey } from "../common/index.ts";
import { departAndPush } from "./departures.ts";
import { pushState, pushStateTo } from "./lobby-frames.ts";
import type { LobbyMessageOf } from "./lobby-messages.ts";
import type { LobbyOptions } from "./lobby-options.ts";
import type { LobbyState, Member } from "./lobby-state.ts";
import { findMember, roomRunning } from "./lobby-state.ts";
import { armGrace, cancelGrace } from "./lobby-timers.ts";
import { updateMember } from "./members.ts";
import type { LobbyEnv } from "./lobby-env.ts";

/** Sessions dropping and coming back: a dropped member keeps its place for a grace, then leaves. */

type Step = Transition<LobbyState>;

/** A dropped member is back: connected again, its grace cancelled, everyone told. */
export function reconnect(state: LobbyState, player: string): Step {
  const next = updateMember(state, player, { connected: true });
  return { state: next, effects: [cancelGrace(player), pushState(next)] };
}

/**
 * The gateway reports a member's session dropping or coming back. Unknown players change nothing. The
 * answer says whether the player is a member: a gateway resuming a session on a lobby the client named
 * (`hello.lobby`) learns from it that the lobby is the player's.
 */
export function connection(state: LobbyState, message: LobbyMessageOf<"connection">, env: LobbyEnv): Step {
  const { player, connected } = message;
  const member = findMember(state, player);
  if (member === undefined) return { state, effects: [reply(notMember)] };
  if (connected) {
    // A member seated in the running room is back for the room too: after a failover the room may live
    // on another node than this lobby, where the member's session is not, and waits for its seats.
    const room =
      member.inRoom && roomRunning(state) && state.room !== null ? [roomBack(state.room.code, player)] : [];
    // A session resumed without the lobby noticing a drop still wants the current state. Nothing
    // changed, so nothing waits for a write (the push's number is written with the next change). A
    // member moving over after a migration has arrived: its arrival window is closed.
    if (member.connected)
      return {
        state,
        effects: [cancelGrace(player), pushStateTo(state, player), ...room, reply(isMember)],
        volatile: true,
      };
    return withEffects(reconnect(state, player), ...room, reply(isMember));
  }
  if (!member.connected) return { state, effects: [reply(isMember)] };
  return withEffects(disconnect(state, member, env), reply(isMember));
}

const isMember = { member: true };
const notMember = { member: false };

/**
 * The lobby's running room was restored on a new node, which counts as connected only the seats whose
 * sessions are on that node: the members connected here, seated in it, are reported to it. (A member's
 * own `connection` may have reached the lobby while the room was still being taken over, and its tell to
 * the room was lost then.)
 */
export function roomRestored(state: LobbyState, message: LobbyMessageOf<"roomRestored">): Step {
  const room = state.room;
  if (room?.code !== message.room || !roomRunning(state)) return { state, effects: [reply()] };
  const back = state.members.filter((m) => m.connected && m.inRoom).map((m) => roomBack(room.code, m.player));
  return { state, effects: [...back, reply()] };
}

function roomBack(code: string, player: string): Effect {
  return { type: "tell", to: roomKey(code), message: { type: "connection", player, connected: true } };
}

function inRunningRoom(state: LobbyState, member: Member): boolean {
  return member.inRoom && roomRunning(state);
}

/**
 * A member's session dropped: in a running room it keeps its seat for the room's reconnect grace;
 * otherwise for the lobby grace, or it leaves at once when that is 0 (the seed's behaviour).
 */
function disconnect(state: LobbyState, member: Member, env: LobbyEnv): Step {
  const { options, ctx } = env;
  const inRoom = inRunningRoom(state, member);
  if (!inRoom && options.lobbyGraceSeconds === 0) return departAndPush(state, member.player, "leave", env);
  const seconds = inRoom ? options.reconnectGraceSeconds : options.lobbyGraceSeconds;
  const next = updateMember(state, member.player, { connected: false });
  return { state: next, effects: [armGrace(member.player, ctx.now, seconds), pushState(next)] };
}

/**
 * The grace after a restore. The system caused the drop, so nobody may lose a seat to it: even with a
 * lobby grace of 0 the member gets a real grace to reconnect in.
 */
function restoreGraceSeconds(state: LobbyState, member: Member, options: LobbyOptions): number {
  if (inRunningRoom(state, member)) return options.reconnectGraceSeconds;
  if (options.lobbyGraceSeconds > 0) return options.lobbyGraceSeconds;
  return Math.max(options.lobbyGraceSeconds, options.reconnectGraceSeconds);
}

/**
 * How long a member connected to the node a lobby left has to reach the lobby's new node: its SDK opens
 * its new socket as soon as it hears `moved` (docs/fleet.md, "Make before break").
 */
export const migrationArrivalSeconds = 15;

/**
 * After a failover or migration: members whose sessions are here are connected; every other member is
 * marked disconnected with a fresh, full grace. The state is pushed to everyone in any case, so clients
 * hear it under the new owner's epoch.
 *
 * Except after a migration, for the members connected to the node the lobby left: they are on their way
 * here and stay connected (nobody sees them flicker away and back during a deploy), with an arrival
 * window — their grace timer, armed while they count as connected. Their `connection` here closes it;
 * if it runs out first (the player's socket dropped before it moved over, which the old node does not
 * report), they are marked away then, with the full grace a restore gives.
 */
export function restored(state: LobbyState, message: Restored, env: LobbyEnv): Step {
  // A few members against every player on the node: looked up in the list, not copied into a set.
  const effects: Effect[] = [];
  let next = state;
  for (const member of state.members) {
    if (message.connected.includes(member.player)) {
      if (member.connected) {
        // An arrival window written before a failover is no grace for a member who is here.
        effects.push(cancelGrace(member.player));
        continue;
      }
      next = updateMember(next, member.player, { connected: true });
      effects.push(cancelGrace(member.player));
    } else if (message.reason === "migration" && member.connected) {
      effects.push(armGrace(member.player, env.ctx.now, migrationArrivalSeconds));
    } else {
      if (member.connected) next = updateMember(next, member.player, { connected: false });
      const grace = restoreGraceSeconds(state, member, env.options);
      // A failover's absent members may still be waiting out their SDK's liveness on the silent node.
      const seconds =
        message.reason === "failover" ? Math.max(grace, env.options.failoverGraceSeconds) : grace;
      effects.push(armGrace(member.player, env.ctx.now, seconds));
    }
  }
  // Every member back here already (a failover its members resumed into), or on its way (a migration):
  // the seal wrote this very state, so the push need not wait for another write.
  return {
    state: next,
    effects: [...effects, pushState(next)],
    ...(next === state ? { volatile: true } : {}),
  };
}

/**
 * A grace ran out: the member, still away, leaves (and the host role moves on if it was the host). The
 * grace of a member counted as connected is a migration's arrival window (see `restored`): it never
 * arrived, so it is away now, with a restore's full grace.
 */
export function graceExpired(state: LobbyState, player: string, env: LobbyEnv): Step {
  const member = findMember(state, player);
  // A timer that fired after the member left is stale (one cancelled when it came back never fires).
  if (member === undefined) return { state, effects: [] };
  if (member.connected) {
    const next = updateMember(state, player, { connected: false });
    const seconds = restoreGraceSeconds(state, member, env.options);
    return { state: next, effects: [armGrace(player, env.ctx.now, seconds), pushState(next)] };
  }
  return departAndPush(state, player, "grace", env);
}
