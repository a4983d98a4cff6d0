import { refuse, reply, type ActorContext, type Transition } from "../runtime/index.ts";
import { roomKey } from "../common/index.ts";
import type { PlayerMessage } from "./player-messages.ts";
import type { PlayerState } from "./player-state.ts";
import { entryIntentMs } from "./player-state.ts";
import { depart, driveDepartures, driveLater, notLeaving } from "./player-departures.ts";
import {
  decideEntry,
  type Departure,
  type Entry,
  type SearchRecord,
  type Whereabouts,
} from "./whereabouts.ts";

/**
 * The registry's side of every entry: the gateway asks (`enter`), the rule decides, the decision is
 * recorded as the intent (`entering`) and the entry carried out; once it is made (`entered`, or the
 * lobby's own `joined`) the departures it causes start. A failed entry (`enterFailed`) changes nothing.
 * An intent whose gateway never reports is taken as made when it expires: the player then ends up in
 * the new place or in none, never in two.
 */

type Step = Transition<PlayerState>;
type Of<T extends PlayerMessage["type"]> = Extract<PlayerMessage, { type: T }>;
/** What a gateway reports of a made entry. */
interface Report {
  readonly queueEntry?: string | undefined;
  readonly lobby?: string | undefined;
  readonly room?: string | undefined;
}

/** Where the player is: the registry's records, and the room its gateway sees it seated in. */
export function whereaboutsOf(state: PlayerState, seated: string | null): Whereabouts {
  const room = seated ?? state.room ?? (state.match === null ? null : roomKey(state.match.room));
  return { lobby: state.lobby, search: state.search, room, matched: state.matched };
}

function sameEntry(a: Entry, b: Entry): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Re-entering a place stops leaving it. */
function returningTo(state: PlayerState, entry: Entry): PlayerState {
  if (entry.kind === "lobby") {
    return { ...state, leaving: notLeaving(state.leaving, (d) => "lobby" in d && d.lobby === entry.key) };
  }
  if (entry.kind === "search" || entry.kind === "partySearch") {
    const leaving = notLeaving(state.leaving, (d) => "search" in d && d.search.queue === entry.queue);
    return { ...state, leaving };
  }
  return state;
}

/** The rule is asked; an allowed entry is recorded with its departures, to be started once it is made. */
export function enter(state: PlayerState, message: Of<"enter">, ctx: ActorContext): Step {
  // An earlier entry still under way is taken as made (its departures are not forgotten), unless this is
  // the same entry asked again (a retry).
  const earlier = state.entering;
  const before =
    earlier === null || sameEntry(earlier.entry, message.entry) ? { state, effects: [] } : made(state, ctx);
  const decision = decideEntry(whereaboutsOf(before.state, message.seated), message.entry);
  if (!decision.ok) return refuse(state, decision.code, decision.message);
  const entering = { entry: message.entry, leave: [...decision.leave], until: ctx.now + entryIntentMs };
  const next: PlayerState = { ...returningTo(before.state, message.entry), entering };
  return { state: next, effects: [...before.effects, driveLater(ctx), reply({ leave: decision.leave })] };
}

/** The search an entry made, as recorded. */
function searchOf(entry: Entry, queueEntry: string | null): SearchRecord | null {
  if (entry.kind === "search") return { queue: entry.queue, entry: queueEntry, party: null };
  if (entry.kind === "partySearch") {
    return { queue: entry.queue, entry: queueEntry, party: { lobby: entry.lobby, host: entry.host } };
  }
  return null;
}

/**
 * The intent's entry was made (or is taken as made): the place is recorded and the departures start. A
 * named private lobby is recorded as where the player is even when nothing reported it: its own `joined`
 * usually came first (and completed the intent), but it is lost when the lobby's node dies right after
 * writing the join, or while this registry is being taken over, as the gateway's report can be; and the
 * retry of that request is answered from the lobby's stored result, which tells nothing again. Without
 * the record the player's next lobby would leave this one behind, and it would be in two. Recorded in a
 * lobby whose join in fact failed, it is in none: its next entry tells that lobby `leave`, which a lobby
 * that does not seat it confirms.
 */
function made(state: PlayerState, ctx: ActorContext, report: Report = {}): Step {
  const intent = state.entering;
  if (intent === null) return { state, effects: [] };
  let next: PlayerState = { ...state, entering: null };
  if (intent.leave.some((d) => "lobby" in d && d.lobby === next.lobby)) next = { ...next, lobby: null };
  if (intent.leave.some((d) => "lobby" in d && d.lobby === next.matched)) next = { ...next, matched: null };
  if (intent.leave.some((d) => "search" in d)) next = { ...next, search: null };
  const search = searchOf(intent.entry, report.queueEntry ?? null);
  if (search !== null) next = { ...next, search };
  // A create of a matched lobby puts the player in it at once, as does a named lobby's join or create.
  const lobby = report.lobby ?? namedLobby(intent.entry);
  if (lobby !== null) next = { ...next, lobby, search: null };
  if (report.room !== undefined) next = { ...next, room: report.room };
  return depart(next, intent.leave, ctx);
}

/** The private lobby an entry names (a join, or a create whose code is drawn), or null. */
function namedLobby(entry: Entry): string | null {
  return entry.kind === "lobby" ? entry.key : null;
}

/** The gateway made the entry (a search names its queue entry, a matched lobby's create its lobby). */
export function entered(state: PlayerState, message: Of<"entered">, ctx: ActorContext): Step {
  if (state.entering === null || !sameEntry(state.entering.entry, message.entry)) {
    return { state, effects: [reply()] };
  }
  const step = made(state, ctx, message);
  return { state: step.state, effects: [...step.effects, reply()] };
}

/** The entry failed: the intent is dropped and the player stays where it was. */
export function enterFailed(state: PlayerState, message: Of<"enterFailed">): Step {
  if (state.entering === null || !sameEntry(state.entering.entry, message.entry)) {
    return { state, effects: [reply()] };
  }
  return { state: { ...state, entering: null }, effects: [reply()] };
}

/** The queue search ended (matched, placed, failed or cancelled): the player searches no more. */
export function searchEnded(state: PlayerState, message: Of<"searchEnded">): Step {
  const search = state.search;
  const sameSearch =
    search !== null &&
    search.queue === message.queue &&
    (message.entry === null || search.entry === null || search.entry === message.entry);
  if (!sameSearch) return { state, effects: [reply()] };
  return { state: { ...state, search: null }, effects: [reply()] };
}

/** The player left the room it sat down in directly (or the room is gone). */
export function seatLeft(state: PlayerState, room: string): Step {
  if (state.room !== room) return { state, effects: [reply()] };
  return { state: { ...state, room: null }, effects: [reply()] };
}

/** Whether the intent under way is an entry of a lobby (which the lobby's `joined` completes). */
function entersLobby(state: PlayerState): boolean {
  const kind = state.entering?.entry.kind;
  return kind === "lobby" || kind === "activity";
}

/**
 * A lobby says the player joined it: it leaves its old lobby (told `leave` until it confirms `left`) and
 * its search (unless it is this lobby's party search), and an entry of a lobby under way is made.
 */
export function joined(state: PlayerState, lobby: string, ctx: ActorContext): Step {
  const departures: Departure[] = [];
  if (state.lobby !== null && state.lobby !== lobby) departures.push({ lobby: state.lobby });
  if (state.matched !== null && state.matched !== lobby) departures.push({ lobby: state.matched });
  const search = state.search;
  if (search !== null && search.party?.lobby !== lobby) departures.push({ search });
  const completes = entersLobby(state);
  for (const d of completes ? (state.entering?.leave ?? []) : []) {
    if (!("lobby" in d) || d.lobby !== lobby) departures.push(d);
  }
  const back = notLeaving(state.leaving, (d) => "lobby" in d && d.lobby === lobby);
  if (
    state.lobby === lobby &&
    departures.length === 0 &&
    !completes &&
    back.length === state.leaving.length
  ) {
    return { state, effects: [reply()] };
  }
  const next: PlayerState = {
    ...state,
    lobby,
    matched: null,
    leaving: back,
    search: departures.some((d) => "search" in d) ? null : search,
    entering: completes ? null : state.entering,
  };
  const step = depart(next, departures, ctx);
  return { state: step.state, effects: [...step.effects, reply()] };
}

/**
 * A lobby says the player left it. A late `left` from a lobby the player already moved on from must not
 * clear the new one. Leaving the lobby whose party searches cancels the party's search. A player kicked
 * from its private lobby is also taken out of the matched lobby its party was placed in.
 */
export function left(state: PlayerState, lobby: string, ctx: ActorContext, kicked = false): Step {
  const step = leftLobby(state, lobby, ctx);
  const matched = step.state.matched;
  if (!kicked || matched === null || state.lobby !== lobby) return step;
  const out = depart({ ...step.state, matched: null }, [{ lobby: matched }], ctx);
  return { state: out.state, effects: [...out.effects, ...step.effects] };
}

function leftLobby(state: PlayerState, lobby: string, ctx: ActorContext): Step {
  const leaving = notLeaving(state.leaving, (d) => "lobby" in d && d.lobby === lobby);
  const party = state.search?.party?.lobby === lobby ? state.search : null;
  const current = state.lobby === lobby;
  const matched = state.matched === lobby;
  if (!current && !matched && party === null && leaving.length === state.leaving.length) {
    return { state, effects: [reply()] };
  }
  const next: PlayerState = {
    ...state,
    matched: matched ? null : state.matched,
    leaving,
    lobby: current ? null : state.lobby,
    search: party === null ? state.search : null,
  };
  const step = party === null ? { state: next, effects: [] } : depart(next, [{ search: party }], ctx);
  return { state: step.state, effects: [...step.effects, reply()] };
}

/** The timer: pending departures are told again, and an expired intent is taken as made. */
export function drive(state: PlayerState, ctx: ActorContext): Step {
  const driven = driveDepartures(state, ctx);
  const intent = driven.state.entering;
  const after = intent !== null && ctx.now >= intent.until ? made(driven.state, ctx) : driven;
  const tells = [...driven.effects, ...(after === driven ? [] : after.effects)].filter(
    (e) => e.type !== "timer",
  );
  const pending = after.state.leaving.length > 0 || after.state.entering !== null;
  return { state: after.state, effects: pending ? [...tells, driveLater(ctx)] : tells };
}

/** Restored elsewhere: whatever is pending is driven again from the snapshot. */
export function restoredPlaces(state: PlayerState, ctx: ActorContext): Step {
  const pending = state.leaving.length > 0 || state.entering !== null;
  return { state, effects: pending ? [driveLater(ctx)] : [] };
}
