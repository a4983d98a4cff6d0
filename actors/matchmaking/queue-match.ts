import { pushTo, refuse, reply, type Effect } from "../runtime/index.ts";
import { chooseTeam, freeByTeam, isFull } from "./lobby-rules.ts";
import { matchTimerName, playersOfMatch, reaskRoom, startMatch } from "./queue-match-room.ts";
import type { QueueMessageOf } from "./queue-messages.ts";
import type { QueueEnv, QueueStep } from "./queue-options.ts";
import { miss, regionFor } from "./queue-search.ts";
import type { QueueEntry, QueueMatch, QueueState } from "./queue-state.ts";
import { patchEntry, patchMatch } from "./queue-state.ts";
import { admitter } from "./step-algorithm.ts";

/**
 * The queue's accept phase (SPEC §4), for a lobby type with `queueAccept`: the queue matches full groups of
 * waiting entries itself, takes them out together, asks every player to accept, and on the last accept
 * asks for the room (queue-match-room.ts), announced to the players once it is stored.
 */

/** Why a match was called off: a player declined (or cancelled its search), or someone did not answer in time. */
export type MatchCancelReason = "declined" | "acceptTimeout";

/** Which entries a search would match, with each player's team, before anything is taken out. */
export interface MatchProposal {
  readonly entries: readonly string[];
  readonly seats: readonly { readonly player: string; readonly team: string }[];
}

/** The requester and its party, requester first. */
function playersOf(entry: QueueEntry): string[] {
  return [entry.player.id, ...entry.party.map((p) => p.id)];
}

/** Waiting entries in the order a step searches them: back from a cancelled match first, then highest step, then arrival. */
export function searchOrder(entries: readonly QueueEntry[]): QueueEntry[] {
  return entries
    .filter((e) => e.stage.status === "waiting")
    .sort((a, b) => Number(b.front) - Number(a.front) || b.step - a.step || a.seq - b.seq);
}

/**
 * The entries `seeker` would be matched with at its step: the other waiting entries whose rating passes
 * its algorithm (a candidate's region is its own nearest), closest rating first, each group in one team,
 * until every team is at `maxUsers`. Undefined when no full group can be made.
 */
export function proposeMatch(
  state: QueueState,
  seeker: QueueEntry,
  env: QueueEnv,
): MatchProposal | undefined {
  return proposeAmong(state.entries, seeker, env);
}

/**
 * `proposeMatch` over a given list of entries (a step's index of them by rating narrows it down): the
 * ones not waiting, the seeker itself and those outside its window are left out here.
 */
export function proposeAmong(
  entries: readonly QueueEntry[],
  seeker: QueueEntry,
  env: QueueEnv,
): MatchProposal | undefined {
  const { teams } = env.lobbyType;
  const me = { rating: seeker.rating, pingData: seeker.pingData };
  // Filtered before the search order is taken: sorting only the few that pass keeps a step of a long
  // queue from sorting every entry once per seeker (the same order: filtering does not change it).
  const test = admitter(seeker.algorithm, seeker.step, me);
  const passing = entries.filter(
    (e) =>
      e.id !== seeker.id &&
      e.stage.status === "waiting" &&
      test.admits({ rating: e.rating, region: test.needsRegion ? regionFor(e, env) : "" }),
  );
  const others = searchOrder(passing)
    .map((e, i) => ({ e, i }))
    .sort((a, b) => Math.abs(a.e.rating - seeker.rating) - Math.abs(b.e.rating - seeker.rating) || a.i - b.i)
    .map(({ e }) => e);
  const ids: string[] = [];
  const seats: { player: string; team: string }[] = [];
  for (const entry of [seeker, ...others]) {
    const players = playersOf(entry);
    const free = freeByTeam(
      teams,
      seats.map((s) => ({ team: s.team })),
    );
    const team = chooseTeam(teams, free, entry.team, players.length);
    if (team === undefined) continue;
    ids.push(entry.id);
    seats.push(...players.map((player) => ({ player, team })));
    if (isFull(teams, seats)) return { entries: ids, seats };
  }
  return undefined;
}

/**
 * Takes a proposal's entries out of the queue all together — or, when any of them is no longer waiting
 * (it left, or another match took it), none of them: undefined, nothing changed. Every player hears
 * `matchFound` and the accept deadline is armed.
 */
export function takeOut(state: QueueState, proposal: MatchProposal, env: QueueEnv): QueueStep | undefined {
  const taken = proposal.entries.map((id) => state.entries.find((e) => e.id === id));
  if (taken.some((e) => e?.stage.status !== "waiting")) return undefined;
  const { ctx, lobbyType } = env;
  const id = `${ctx.key}#${state.nextMatch}`;
  const acceptBy = ctx.now + (lobbyType.queueAccept?.timeoutSecs ?? 0) * 1000;
  const match: QueueMatch = {
    id,
    acceptBy,
    entries: [...proposal.entries],
    seats: proposal.seats.map((s) => ({ ...s })),
    accepted: [],
    starting: false,
    room: null,
    announced: false,
    node: null,
    url: null,
    tokens: {},
  };
  const entries = state.entries.map((e) =>
    proposal.entries.includes(e.id)
      ? { ...e, front: false, stage: { status: "matched", match: id } as const }
      : e,
  );
  const next: QueueState = {
    ...state,
    entries,
    nextMatch: state.nextMatch + 1,
    matches: [...state.matches, match],
  };
  return {
    state: next,
    effects: [
      { type: "timer", name: matchTimerName(id), at: acceptBy, kind: "game" },
      ...pushTo(playersOfMatch(match), { type: "matchFound", queue: ctx.key, matchId: id, acceptBy }),
    ],
  };
}

/** One step's search of one waiting entry of a `queueAccept` type: a full match taken out, or a miss. */
export function matchEntry(state: QueueState, entry: QueueEntry, env: QueueEnv): QueueStep {
  const proposal = proposeMatch(state, entry, env);
  const taken = proposal === undefined ? undefined : takeOut(state, proposal, env);
  return taken ?? miss(state, entry, env);
}

/**
 * The match is off: the entries in `dropped` leave the queue, every other entry goes back to the front of
 * it at its step. Every player hears `matchCancelled` with whether it is searching again.
 */
export function cancelMatch(
  state: QueueState,
  match: QueueMatch,
  dropped: readonly string[],
  reason: MatchCancelReason,
  env: QueueEnv,
): QueueStep {
  let next = patchMatch(state, match.id, undefined);
  const effects: Effect[] = [{ type: "cancelTimer", name: matchTimerName(match.id) }];
  for (const id of match.entries) {
    const entry = next.entries.find((e) => e.id === id);
    if (entry === undefined) continue;
    const requeued = !dropped.includes(id);
    const frame = { type: "matchCancelled", queue: env.ctx.key, matchId: match.id, reason, requeued };
    next = patchEntry(
      next,
      id,
      requeued ? { ...entry, front: true, stage: { status: "waiting" } } : undefined,
    );
    effects.push(...pushTo(playersOf(entry), frame));
  }
  return { state: next, effects };
}

/** The match a player's answer names, or a refusal: no such match, or the player is not in it. */
function answered(state: QueueState, message: QueueMessageOf<"accept" | "decline">): QueueMatch | QueueStep {
  const match = state.matches.find((m) => m.id === message.matchId);
  if (match === undefined) return refuse(state, "NOT_FOUND", `no match ${message.matchId} is waiting`);
  if (!match.seats.some((s) => s.player === message.player))
    return refuse(state, "NOT_IN_LOBBY", `${message.player} is not in ${match.id}`);
  return match;
}

/** A player accepts; the last accept starts the match. Accepting twice changes nothing. */
export function acceptMatch(state: QueueState, message: QueueMessageOf<"accept">, env: QueueEnv): QueueStep {
  const match = answered(state, message);
  if (!("id" in match)) return match;
  if (match.accepted.includes(message.player)) return { state, effects: [reply()] };
  const accepted = [...match.accepted, message.player];
  const updated: QueueMatch = { ...match, accepted };
  const next = patchMatch(state, match.id, updated);
  if (!playersOfMatch(match).every((p) => accepted.includes(p))) return { state: next, effects: [reply()] };
  const started = startMatch(next, updated, env);
  return {
    state: started.state,
    effects: [{ type: "cancelTimer", name: matchTimerName(match.id) }, ...started.effects, reply()],
  };
}

/** A player declines: its entry (with its party) leaves the queue, the others go back to its front. */
export function declineMatch(
  state: QueueState,
  message: QueueMessageOf<"decline">,
  env: QueueEnv,
): QueueStep {
  const match = answered(state, message);
  if (!("id" in match)) return match;
  if (match.starting) return refuse(state, "INVALID", `${match.id} was accepted by everyone`);
  const entry = state.entries.find(
    (e) => match.entries.includes(e.id) && playersOf(e).includes(message.player),
  );
  const cancelled = cancelMatch(state, match, entry === undefined ? [] : [entry.id], "declined", env);
  return { state: cancelled.state, effects: [...cancelled.effects, reply()] };
}

/**
 * A match's timer: a start that waits for a node is tried again, a room not confirmed in time is asked
 * for again; past the accept deadline every entry with a player who has not accepted leaves, the others
 * go back. A stale fire changes nothing.
 */
export function matchTimer(state: QueueState, id: string, env: QueueEnv): QueueStep {
  const match = state.matches.find((m) => m.id === id);
  // A match whose room was announced arms no timer: a fire is stale.
  if (match === undefined || match.announced) return { state, effects: [] };
  if (match.room !== null) return reaskRoom(state, match, env);
  if (match.starting) return startMatch(state, match, env);
  if (env.ctx.now < match.acceptBy) return { state, effects: [] };
  const late = state.entries
    .filter((e) => match.entries.includes(e.id) && playersOf(e).some((p) => !match.accepted.includes(p)))
    .map((e) => e.id);
  return cancelMatch(state, match, late, "acceptTimeout", env);
}
