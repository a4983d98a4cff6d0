import { refuse, reply, type Effect, type Restored, type TimerFired } from "../runtime/index.ts";
import { chooseTeam, freeByTeam } from "./lobby-rules.ts";
import type { QueueMessage, QueueMessageOf } from "./queue-messages.ts";
import type { QueueEnv, QueueStep } from "./queue-options.ts";
import {
  createFor,
  entryOfTimer,
  entryTimerName,
  placedTells,
  resolveFilter,
  searchEntry,
} from "./queue-search.ts";
import { acceptMatch, declineMatch, matchTimer, searchOrder } from "./queue-match.ts";
import {
  activeMatch,
  matchOfTimer,
  matchRoomEnded,
  matchRoomStored,
  matchSpawnFailed,
  playingMatchOf,
  roomHostOf,
} from "./queue-match-room.ts";
import { runMatchStep } from "./queue-match-step.ts";
import type { QueueEntry, QueueState } from "./queue-state.ts";
import { patchEntry, patchLobby } from "./queue-state.ts";

/**
 * The queue's transition function. Requests wait as entries; every `stepSeconds` the step timer searches
 * each waiting entry once, oldest (highest step) first, against the view its lobbies keep current.
 */

/** The name of the game timer that runs a step. */
export const stepTimerName = "step";

type Request = QueueMessageOf<"findLobby" | "findOrCreateLobby" | "createLobby">;

/** Arms the step timer when entries wait and it is not armed; matched entries wait for their players, not a step. */
function withTick(step: QueueStep, env: QueueEnv): QueueStep {
  const { state } = step;
  if (state.tickAt !== null || state.entries.every((e) => e.stage.status === "matched")) return step;
  const at = env.ctx.now + Math.round((env.lobbyType.stepSeconds ?? env.options.stepSeconds) * 1000);
  return {
    state: { ...state, tickAt: at },
    effects: [...step.effects, { type: "timer", name: stepTimerName, at, kind: "game" }],
  };
}

/**
 * The first of `players` already in one of the queue's entries (as requester or party member), or
 * undefined. One pass over the entries whatever the group's size: every request of a long queue pays it.
 */
function firstQueued(state: QueueState, players: readonly string[]): string | undefined {
  const wanted = new Set(players);
  const found = new Set<string>();
  for (const entry of state.entries) {
    if (wanted.has(entry.player.id)) found.add(entry.player.id);
    for (const member of entry.party) if (wanted.has(member.id)) found.add(member.id);
  }
  return players.find((id) => found.has(id));
}

/** Why a request cannot be queued, or undefined when it can. */
function invalid(state: QueueState, message: Request, env: QueueEnv): string | undefined {
  if (message.type === "createLobby" && env.lobbyType.queueAccept !== undefined)
    return `${env.lobbyType.id} matches players in its queue; it has no lobbies to create`;
  const ids = [message.player.id, ...message.party.map((p) => p.id)];
  if (new Set(ids).size !== ids.length) return "a party lists a player twice";
  const already = firstQueued(state, ids);
  if (already !== undefined) return `${already} is already in the queue`;
  const { teams } = env.lobbyType;
  const team = message.team === "" ? null : message.team;
  if (team !== null && !teams.some((t) => t.code === team)) return `no team ${team} in ${env.lobbyType.id}`;
  if (chooseTeam(teams, freeByTeam(teams, []), team, ids.length) === undefined) {
    return team === null
      ? `no autoAssign team of ${env.lobbyType.id} holds ${ids.length}`
      : `team ${team} holds fewer than ${ids.length}`;
  }
  return undefined;
}

/**
 * A request joins the queue and is answered `{ entry }`; `createLobby` opens its lobby at once and is
 * answered `{ entry, lobby }`. The outcome of a search reaches the players as frames: the lobby's view when
 * they join, `matchmakingFailed` (JOIN_FAIL) when nothing matched by `maxSteps`.
 */
export function enqueue(state: QueueState, message: Request, env: QueueEnv): QueueStep {
  const playing = [message.player.id, ...message.party.map((p) => p.id)]
    .map((id) => [id, playingMatchOf(state, id)?.room] as const)
    .find(([, room]) => room !== undefined);
  if (playing !== undefined)
    return refuse(state, "ALREADY_PLAYING", `${playing[0]} is playing in room ${String(playing[1])}`);
  const why = invalid(state, message, env);
  if (why !== undefined) return refuse(state, "INVALID", why);
  const id = `e${state.nextEntry}`;
  // A create never searches; its entry lives only for the length of this message.
  const search: Pick<QueueEntry, "maxSteps" | "algorithm" | "filter"> =
    message.type === "createLobby"
      ? {
          maxSteps: 1,
          algorithm: { strategy: "ranged-absolute", alignment: "center", ranges: [0] },
          filter: {},
        }
      : { maxSteps: message.maxSteps, algorithm: message.algorithm, filter: message.filter };
  const entry: QueueEntry = {
    id,
    seq: state.nextEntry,
    // A type matched in its queue never creates a lobby: its find-or-create fails like a find.
    create: message.type !== "findLobby" && env.lobbyType.queueAccept === undefined,
    player: message.player,
    party: message.party,
    rating: message.rating,
    ...search,
    ready: message.ready,
    extra: message.extra,
    team: message.team === "" ? null : message.team,
    pingData: message.pingData,
    settings: message.type === "findLobby" ? {} : message.settings,
    step: 0,
    stage: { status: "waiting" },
    front: false,
  };
  const next: QueueState = { ...state, nextEntry: state.nextEntry + 1, entries: [...state.entries, entry] };
  if (message.type === "createLobby") {
    const created = createFor(next, entry, env);
    const lobby = created.state.lobbies.at(-1)?.lobby;
    return { state: created.state, effects: [...created.effects, reply({ entry: id, lobby })] };
  }
  return withTick({ state: next, effects: [reply({ entry: id })] }, env);
}

/**
 * The player stops searching. A group already sent to a lobby cannot be called back; one waiting for its
 * match's accepts declines it.
 */
function cancel(state: QueueState, player: string, env: QueueEnv, id?: string): QueueStep {
  const entry = state.entries.find((e) => e.player.id === player && (id === undefined || e.id === id));
  if (entry === undefined) return refuse(state, "NOT_FOUND", `${player} is not in the queue`);
  if (entry.stage.status === "matched")
    return withTick(declineMatch(state, { type: "decline", player, matchId: entry.stage.match }, env), env);
  if (entry.stage.status === "placing")
    return refuse(state, "INVALID", `${player} is already being placed in a lobby`);
  return {
    state: patchEntry(state, entry.id, undefined),
    effects: [{ type: "cancelTimer", name: entryTimerName(entry.id) }, reply()],
  };
}

/**
 * One step: every waiting entry is searched once — back from a cancelled match first, then highest step,
 * then arrival order. An entry an earlier search of the step matched is not searched again.
 */
function runStep(state: QueueState, env: QueueEnv): QueueStep {
  if (env.lobbyType.queueAccept !== undefined) {
    // No node can take a room now: nobody is matched, every entry stays as it is (its step too) until
    // a room frees, rather than being asked to accept a match with nowhere to play.
    if (roomHostOf(env.ctx) === undefined)
      return withTick({ state: { ...state, tickAt: null }, effects: [] }, env);
    return withTick(runMatchStep({ ...state, tickAt: null }, env), env);
  }
  const order = searchOrder(state.entries).map((e) => e.id);
  const search = searchEntry;
  let next: QueueState = { ...state, tickAt: null };
  const effects: Effect[] = [];
  for (const id of order) {
    const entry = next.entries.find((e) => e.id === id);
    if (entry?.stage.status !== "waiting") continue;
    const searched = search(next, entry, env);
    next = searched.state;
    effects.push(...searched.effects);
  }
  return withTick({ state: next, effects }, env);
}

/** A lobby's report replaces what the queue knew, unless a newer one came first. */
function status(state: QueueState, message: QueueMessageOf<"lobbyStatus">): QueueStep {
  const { type: _type, ...view } = message;
  const known = state.lobbies.find((l) => l.lobby === message.lobby);
  if (known === undefined) return { state: { ...state, lobbies: [...state.lobbies, view] }, effects: [] };
  if (message.version <= known.version) return { state, effects: [] };
  return { state: patchLobby(state, message.lobby, view), effects: [] };
}

/** The lobby's answer to a join: the entry is done, or searches again at the same step. */
function joinResult(state: QueueState, message: QueueMessageOf<"joinResult">, env: QueueEnv): QueueStep {
  const entry = state.entries.find((e) => e.id === message.entry);
  if (entry?.stage.status !== "placing" || entry.stage.lobby !== message.lobby) return { state, effects: [] };
  const cancelTimer: Effect = { type: "cancelTimer", name: entryTimerName(entry.id) };
  if (message.ok) {
    const placed = placedTells(entry, message.lobby, env.ctx.key);
    return { state: patchEntry(state, entry.id, undefined), effects: [cancelTimer, ...placed] };
  }
  // The view was stale: the lobby counts as closed until it reports again.
  const next = patchEntry(patchLobby(state, message.lobby, { open: false }), entry.id, {
    ...entry,
    stage: { status: "waiting" },
  });
  return withTick({ state: next, effects: [cancelTimer] }, env);
}

/** A filter verdict; once every candidate has one, the entry is resolved. Late or stray verdicts are dropped. */
function verdict(state: QueueState, message: QueueMessageOf<"filterVerdict">, env: QueueEnv): QueueStep {
  const entry = state.entries.find((e) => e.id === message.entry);
  if (entry?.stage.status !== "filtering") return { state, effects: [] };
  const { stage } = entry;
  if (!stage.candidates.includes(message.lobby) || stage.verdicts.some((v) => v.lobby === message.lobby))
    return { state, effects: [] };
  const verdicts = [...stage.verdicts, { lobby: message.lobby, accept: message.accept }];
  const updated: QueueEntry = { ...entry, stage: { ...stage, verdicts } };
  const next = patchEntry(state, entry.id, updated);
  if (verdicts.length < stage.candidates.length) return { state: next, effects: [] };
  return withTick(resolveFilter(next, updated, env), env);
}

/** An entry's deadline: missing verdicts reject; a lobby that never answered a join is taken as gone. */
function entryDeadline(state: QueueState, id: string, env: QueueEnv): QueueStep {
  const entry = state.entries.find((e) => e.id === id);
  const stage = entry?.stage;
  if (entry === undefined || stage === undefined || !("deadline" in stage) || env.ctx.now < stage.deadline)
    return { state, effects: [] };
  if (stage.status === "filtering") return withTick(resolveFilter(state, entry, env), env);
  const lobby = stage.lobby;
  const next = patchEntry(patchLobby(state, lobby, { open: false }), id, {
    ...entry,
    stage: { status: "waiting" },
  });
  return withTick({ state: next, effects: [] }, env);
}

/** Handles one queue message (already parsed). */
export function handleQueue(
  state: QueueState,
  message: QueueMessage | TimerFired | Restored,
  env: QueueEnv,
): QueueStep {
  switch (message.type) {
    case "findLobby":
    case "findOrCreateLobby":
    case "createLobby":
      return enqueue(state, message, env);
    case "cancel":
      return cancel(state, message.player, env, message.entry);
    case "accept":
      return acceptMatch(state, message, env);
    case "decline":
      return withTick(declineMatch(state, message, env), env);
    case "roomEnded":
      return matchRoomEnded(state, message.room);
    case "leave":
      return { state, effects: [] };
    case "activeMatch":
      return activeMatch(state, message.player, env.ctx.key);
    case "spawnFailed":
      return matchSpawnFailed(state, message.key, env);
    case "spawned":
      return matchRoomStored(state, message.key, env);
    case "lobbyStatus":
      return status(state, message);
    case "lobbyClosed":
      return {
        state: { ...state, lobbies: state.lobbies.filter((l) => l.lobby !== message.lobby) },
        effects: [],
      };
    case "joinResult":
      return joinResult(state, message, env);
    case "filterVerdict":
      return verdict(state, message, env);
    case "timer": {
      if (message.name === stepTimerName) return runStep(state, env);
      const match = matchOfTimer(message.name);
      if (match !== undefined) return withTick(matchTimer(state, match, env), env);
      const id = entryOfTimer(message.name);
      return id === undefined ? { state, effects: [] } : entryDeadline(state, id, env);
    }
    case "restored":
      return { state, effects: [] };
  }
}
