import { playerKey } from "../common/index.ts";
import { pushTo, type Effect } from "../runtime/index.ts";
import { chooseTeam, freeByTeam, meanRating } from "./lobby-rules.ts";
import type { Group, MatchedLobbyInit } from "./matched-lobby-messages.ts";
import { filterKey, matchedLobbyKey } from "./matchmaking-keys.ts";
import { timetableFrom } from "./matched-lobby-timers.ts";
import type { FilterRequest } from "./queue-messages.ts";
import type { QueueEnv, QueueStep } from "./queue-options.ts";
import type { QueueEntry, QueueLobby, QueueState } from "./queue-state.ts";
import { patchEntry, patchLobby } from "./queue-state.ts";
import { passes } from "./step-algorithm.ts";

/** One search of one entry: candidates by the algorithm, filters last, then a place, a new lobby or a failure. */

/** The message of SPEC §3 for a search that found nothing by `maxSteps`. */
export const joinFailMessage = "No lobbies found matching criteria";

/** The entry's timer: its filter deadline or its placing deadline. */
export function entryTimerName(entry: string): string {
  return `entry:${entry}`;
}

/** The entry a timer belongs to, or undefined for another timer. */
export function entryOfTimer(name: string): string | undefined {
  return name.startsWith("entry:") ? name.slice("entry:".length) : undefined;
}

/** The requester and its party, in one team, with the requester's rating, ready flag and extra. */
export function groupOf(entry: QueueEntry): Group {
  const players = [entry.player, ...entry.party].map((p) => ({
    id: p.id,
    name: p.name,
    rating: entry.rating,
    isReady: entry.ready,
    extra: entry.extra,
  }));
  return { entry: entry.id, team: entry.team, players };
}

function teamIn(entry: QueueEntry, lobby: QueueLobby, env: QueueEnv): string | undefined {
  return chooseTeam(env.lobbyType.teams, lobby.free, entry.team, 1 + entry.party.length);
}

/**
 * The lobbies an entry may join at its step: open, with room for its group, inside its window. Best first:
 * the closest rating, then the oldest lobby.
 */
export function candidatesFor(state: QueueState, entry: QueueEntry, env: QueueEnv): QueueLobby[] {
  const fits = state.lobbies.filter(
    (l) =>
      l.open &&
      teamIn(entry, l, env) !== undefined &&
      passes(entry.algorithm, entry.step, { rating: entry.rating, pingData: entry.pingData }, l),
  );
  return fits
    .map((lobby, i) => ({ lobby, i }))
    .sort(
      (a, b) =>
        Math.abs(a.lobby.rating - entry.rating) - Math.abs(b.lobby.rating - entry.rating) || a.i - b.i,
    )
    .map(({ lobby }) => lobby);
}

/** Sends the group to a lobby and reserves its places in the view until the lobby answers. */
export function place(state: QueueState, entry: QueueEntry, lobby: QueueLobby, env: QueueEnv): QueueStep {
  const team = teamIn(entry, lobby, env);
  if (team === undefined) return miss(state, entry, env);
  const free = { ...lobby.free, [team]: (lobby.free[team] ?? 0) - (1 + entry.party.length) };
  const deadline = env.ctx.now + env.options.placeTimeoutMs;
  const placed: QueueEntry = { ...entry, stage: { status: "placing", lobby: lobby.lobby, deadline } };
  const next = patchEntry(patchLobby(state, lobby.lobby, { free }), entry.id, placed);
  return {
    state: next,
    effects: [
      { type: "tell", to: lobby.lobby, message: { type: "join", group: groupOf(entry) } },
      { type: "timer", name: entryTimerName(entry.id), at: deadline, kind: "game" },
    ],
  };
}

/** The region of a new lobby: the requester's nearest, else the node's default. */
export function regionFor(entry: QueueEntry, env: QueueEnv): string {
  const nearest = Object.entries(entry.pingData).sort((a, b) => a[1] - b[1] || a[0].localeCompare(b[0]))[0];
  return nearest?.[0] ?? env.options.defaultRegion;
}

/**
 * Each player's registry hears where its search was placed (player-placed.ts): it records the lobby, or
 * takes the player out again if it gave the search up meanwhile.
 */
export function placedTells(entry: QueueEntry, lobby: string, queue: string): Effect[] {
  const party = entry.party.length > 0;
  return [entry.player, ...entry.party].map((p) => ({
    type: "tell",
    to: playerKey(p.id),
    message: { type: "placed", queue, entry: entry.id, lobby, party },
  }));
}

/** Opens a lobby owned by the entry's requester; the view lists it at once (version 0) until it reports. */
export function createFor(state: QueueState, entry: QueueEntry, env: QueueEnv): QueueStep {
  const { lobbyType, ctx } = env;
  const lobby = matchedLobbyKey(lobbyType.id, state.nextLobby);
  const group = groupOf(entry);
  const region = regionFor(entry, env);
  const team =
    chooseTeam(lobbyType.teams, freeByTeam(lobbyType.teams, []), group.team, group.players.length) ?? "";
  const members = group.players.map((p) => ({ ...p, team }));
  const init: MatchedLobbyInit = { lobbyType, queue: ctx.key, region, settings: entry.settings, group };
  const view: QueueLobby = {
    lobby,
    version: 0,
    region,
    phase: "early",
    rating: meanRating(members),
    open: true,
    free: freeByTeam(lobbyType.teams, members),
    owner: entry.player.id,
    settings: entry.settings,
    round: 1,
    timetable: timetableFrom(ctx.now, lobbyType.rules),
    members,
  };
  const next: QueueState = {
    ...patchEntry(state, entry.id, undefined),
    nextLobby: state.nextLobby + 1,
    lobbies: [...state.lobbies, view],
  };
  return {
    state: next,
    effects: [{ type: "spawn", key: lobby, init }, ...placedTells(entry, lobby, ctx.key)],
  };
}

/** Nothing matched at this step: the next step, or at `maxSteps` a new lobby (find-or-create) or JOIN_FAIL. */
export function miss(state: QueueState, entry: QueueEntry, env: QueueEnv): QueueStep {
  const stepped: QueueEntry = { ...entry, step: entry.step + 1, stage: { status: "waiting" } };
  if (stepped.step < entry.maxSteps) return { state: patchEntry(state, entry.id, stepped), effects: [] };
  if (entry.create) return createFor(state, stepped, env);
  const frame = {
    type: "matchmakingFailed",
    lobbyType: env.lobbyType.id,
    entry: entry.id,
    code: "JOIN_FAIL",
    message: joinFailMessage,
  };
  return {
    state: patchEntry(state, entry.id, undefined),
    effects: pushTo(
      groupOf(entry).players.map((p) => p.id),
      frame,
    ),
  };
}

/** What a filter reads (the seed's filter data): the step, the request's filter JSON and the candidate. */
function filterRequest(entry: QueueEntry, lobby: QueueLobby, env: QueueEnv): Effect {
  const matchCandidate = {
    id: lobby.lobby,
    lobbyType: env.lobbyType.id,
    state: lobby.phase,
    rating: lobby.rating,
    lobbyTypeDef: env.lobbyType,
    settings: lobby.settings,
    timetable: lobby.timetable,
    round: lobby.round,
    region: lobby.region,
    owner: lobby.owner,
    numMembers: lobby.members.length,
    members: lobby.members,
  };
  const data = { step: entry.step, filter: entry.filter, matchCandidate, pingData: entry.pingData };
  const name = env.lobbyType.filter ?? "";
  const message: FilterRequest = {
    type: "filterRequest",
    queue: env.ctx.key,
    entry: entry.id,
    lobby: lobby.lobby,
    data,
  };
  return { type: "tell", to: filterKey(name), message };
}

/** Searches one waiting entry at its step. */
export function searchEntry(state: QueueState, entry: QueueEntry, env: QueueEnv): QueueStep {
  const candidates = candidatesFor(state, entry, env);
  const best = candidates[0];
  if (best === undefined) return miss(state, entry, env);
  if (env.lobbyType.filter === undefined) return place(state, entry, best, env);
  const deadline = env.ctx.now + env.options.filterTimeoutMs;
  const stage = {
    status: "filtering",
    candidates: candidates.map((c) => c.lobby),
    verdicts: [],
    deadline,
  } as const;
  return {
    state: patchEntry(state, entry.id, { ...entry, stage: { ...stage, verdicts: [] } }),
    effects: [
      ...candidates.map((c) => filterRequest(entry, c, env)),
      { type: "timer", name: entryTimerName(entry.id), at: deadline, kind: "game" },
    ],
  };
}

/**
 * Every verdict is in, or the deadline passed (a missing verdict rejects): the best accepted candidate
 * that still has room gets the group; none, and the entry misses this step.
 */
export function resolveFilter(state: QueueState, entry: QueueEntry, env: QueueEnv): QueueStep {
  if (entry.stage.status !== "filtering") return { state, effects: [] };
  const { candidates, verdicts } = entry.stage;
  const accepted = candidates.filter((c) => verdicts.some((v) => v.lobby === c && v.accept));
  const waiting: QueueEntry = { ...entry, stage: { status: "waiting" } };
  const cancel: Effect = { type: "cancelTimer", name: entryTimerName(entry.id) };
  for (const key of accepted) {
    const lobby = state.lobbies.find((l) => l.lobby === key);
    if (lobby?.open === true && teamIn(entry, lobby, env) !== undefined) {
      const placed = place(state, waiting, lobby, env);
      return { state: placed.state, effects: [cancel, ...placed.effects] };
    }
  }
  const missed = miss(state, waiting, env);
  return { state: missed.state, effects: [cancel, ...missed.effects] };
}
