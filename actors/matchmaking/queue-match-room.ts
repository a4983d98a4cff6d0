import { drawCode, playerKey, roomKey, type RoomInit } from "../common/index.ts";
import { pushTo, refuse, reply, type ActorContext, type Effect } from "../runtime/index.ts";
import { seatsFor } from "./matched-lobby-start.ts";
import type { QueueEnv, QueueStep } from "./queue-options.ts";
import type { QueueMatch, QueueState } from "./queue-state.ts";
import { patchMatch } from "./queue-state.ts";

/**
 * The room of a match everyone accepted, in two steps: the queue asks for the room on the
 * least-loaded node that can take it, and only once the runtime confirms the room is stored does it
 * announce it (`matchReady` to each player, the active room to each registry). In between the match is
 * a pending room in the queue's snapshot, so a crash resolves it: a restore that finds the room confirms
 * it, and the match's timer asks again for a confirmation that was lost. A room that could not be made
 * is asked for again under a new code; with no node able to take one the match waits and tries again.
 */

/** Letters and digits of a player's match token. */
const tokenAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** The timer of a match: its accept deadline, then the retries and confirmation wait of its room. */
export function matchTimerName(match: string): string {
  return `match:${match}`;
}

/** The match a timer belongs to, or undefined for another timer. */
export function matchOfTimer(name: string): string | undefined {
  return name.startsWith("match:") ? name.slice("match:".length) : undefined;
}

/** Every player of a match, in seat order. */
export function playersOfMatch(match: QueueMatch): string[] {
  return match.seats.map((s) => s.player);
}

/** The node a room may go to now: none while this node drains (a fact of the node, never a guess). */
export function roomHostOf(ctx: ActorContext): { node: string; url: string } | undefined {
  return ctx.node.draining ? undefined : ctx.node.roomHost;
}

/** The room's init: its seats by team, the host (the first seat), and each player's token. */
function roomInitOf(match: QueueMatch, code: string, env: QueueEnv): RoomInit {
  const players = match.seats.map((s) => ({ id: s.player, team: s.team }));
  // The room keeps the tokens of the players who have not arrived: each takes its seat only with its own.
  return {
    code,
    lobby: env.ctx.key,
    mode: env.lobbyType.id,
    host: players[0]?.id ?? "",
    seats: seatsFor(env.lobbyType.teams, players),
    tokens: match.tokens,
  };
}

/** Waits for the room's confirmation this long before asking again (a crash may have lost it). */
function confirmTimer(match: QueueMatch, env: QueueEnv): Effect {
  const at = env.ctx.now + env.options.roomConfirmMs;
  return { type: "timer", name: matchTimerName(match.id), at, kind: "game" };
}

/**
 * Asks for the room of an accepted match under a new code, with new tokens, on the node the load view
 * names. Nothing is said to the players until it is stored (`matchRoomStored`). With no node able to
 * take a room now, the match waits and tries again after `startRetryMs`.
 */
export function startMatch(state: QueueState, match: QueueMatch, env: QueueEnv): QueueStep {
  const { ctx, options } = env;
  const host = roomHostOf(ctx);
  if (host === undefined) {
    const at = ctx.now + options.startRetryMs;
    const waiting: QueueMatch = { ...match, starting: true, room: null, announced: false };
    return {
      state: patchMatch(state, match.id, waiting),
      effects: [{ type: "timer", name: matchTimerName(match.id), at, kind: "game" }],
    };
  }
  const code = drawCode(ctx.random, options.roomCodeLength, options.roomCodeAlphabet);
  const tokens = Object.fromEntries(
    match.seats.map((s) => [s.player, drawCode(ctx.random, options.tokenLength, tokenAlphabet)]),
  );
  const pending: QueueMatch = {
    ...match,
    starting: true,
    room: code,
    url: host.url,
    node: host.node,
    tokens,
    announced: false,
  };
  // Created and claimed by the host node itself (the runtime carries the spawn there).
  const spawn: Effect = {
    type: "spawn",
    key: roomKey(code),
    init: roomInitOf(pending, code, env),
    node: host.node,
    confirm: true,
  };
  return { state: patchMatch(state, match.id, pending), effects: [spawn, confirmTimer(pending, env)] };
}

/**
 * The pending room's confirmation did not come in time (its creator's node died after the room was
 * stored): asked for again, the same room on the same node, where a room already stored counts as it.
 */
export function reaskRoom(state: QueueState, match: QueueMatch, env: QueueEnv): QueueStep {
  if (match.room === null) return { state, effects: [] };
  const spawn: Effect = {
    type: "spawn",
    key: roomKey(match.room),
    init: roomInitOf(match, match.room, env),
    ...(match.node === null ? {} : { node: match.node }),
    confirm: true,
    reask: true,
  };
  return { state, effects: [spawn, confirmTimer(match, env)] };
}

/** The pending match whose room is `key`, if any. */
function pendingOf(state: QueueState, key: string): QueueMatch | undefined {
  return state.matches.find((m) => m.room !== null && !m.announced && roomKey(m.room) === key);
}

/**
 * The runtime confirms a match's room is stored: now the match is announced, once. Each player gets
 * `matchReady { url, room, token }` with its own token; the entries leave the queue, and the match stays
 * as the players' active room until the room ends. A confirmation of a room already announced (a reask
 * crossing the first confirmation) changes nothing.
 */
export function matchRoomStored(state: QueueState, key: string, env: QueueEnv): QueueStep {
  const match = pendingOf(state, key);
  const room = match?.room;
  if (match === undefined || room == null) return { state, effects: [] };
  const { ctx } = env;
  const running: QueueMatch = { ...match, announced: true };
  const players = playersOfMatch(running);
  const ready: Effect[] = players.flatMap((p) => pushTo([p], readyFrame(running, p, ctx.key)));
  // The players' registries index the active room, so a returning player's gateway finds it (SPEC §4).
  const recorded: Effect[] = players.map((p) => ({
    type: "tell",
    to: playerKey(p),
    message: { type: "matchStarted", queue: ctx.key, room },
  }));
  const left = state.entries.filter((e) => !match.entries.includes(e.id));
  return {
    state: { ...patchMatch(state, match.id, running), entries: left },
    effects: [{ type: "cancelTimer", name: matchTimerName(match.id) }, ...ready, ...recorded],
  };
}

/**
 * A match's room was not created (its code was taken, its node full or gone): asked for again under a
 * new code, with new tokens, or waiting for a node that can take it. Its players heard nothing of it.
 */
export function matchSpawnFailed(state: QueueState, key: string, env: QueueEnv): QueueStep {
  const match = pendingOf(state, key);
  return match === undefined ? { state, effects: [] } : startMatch(state, { ...match, room: null }, env);
}

/** Where one player of a running match plays: the fields of its `matchReady`. */
function whereToPlay(match: QueueMatch, player: string, queue: string) {
  return {
    queue,
    matchId: match.id,
    url: match.url ?? "",
    room: match.room ?? "",
    token: match.tokens[player] ?? "",
  };
}

/** A running match's `matchReady` for one of its players. */
function readyFrame(match: QueueMatch, player: string, queue: string) {
  return { type: "matchReady", ...whereToPlay(match, player, queue) };
}

/** The active match a player is playing (its room stored and announced), if any. */
export function playingMatchOf(state: QueueState, player: string): QueueMatch | undefined {
  return state.matches.find(
    (m) => m.room !== null && m.announced && m.seats.some((s) => s.player === player),
  );
}

/**
 * A match's room ended (the room says so, or a gateway found it gone): its record is dropped, its players
 * may queue again, and their registries forget the room.
 */
export function matchRoomEnded(state: QueueState, room: string): QueueStep {
  const match = state.matches.find((m) => m.room === room && m.announced);
  if (match === undefined) return { state, effects: [] };
  const forget: Effect[] = playersOfMatch(match).map((p) => ({
    type: "tell",
    to: playerKey(p),
    message: { type: "matchEnded", room },
  }));
  return { state: patchMatch(state, match.id, undefined), effects: forget };
}

/**
 * A gateway asks for a returning player's running match (SPEC §4): answered with what its `matchReady`
 * said (same room, same token), or NOT_FOUND when the player plays no match of this queue.
 */
export function activeMatch(state: QueueState, player: string, queue: string): QueueStep {
  const match = playingMatchOf(state, player);
  if (match === undefined) return refuse(state, "NOT_FOUND", `${player} plays no match of ${queue}`);
  return { state, effects: [reply(whereToPlay(match, player, queue))] };
}
