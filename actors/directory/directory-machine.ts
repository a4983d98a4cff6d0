import type { ActorContext, Effect, Restored, TimerFired, Transition } from "../runtime/index.ts";
import { lobbyKey, roomKey, type LobbyListing } from "../common/index.ts";
import type { RoomListing } from "../room/index.ts";
import type { BrowseKind, DirectoryMessage } from "./directory-messages.ts";
import type { DirectoryEntry, DirectoryRoomEntry, DirectoryState } from "./directory-state.ts";
import type { BrowseAnswer } from "./browse-answer.ts";

export type { BrowseAnswer, BrowseLine, BrowseRoomLine } from "./browse-answer.ts";

/** The directory's transition function. */

type Step = Transition<DirectoryState>;

/** The most lines of each kind one browse answer carries; a frame must stay small. */
export const browseLimit = 100;

/**
 * How the list stays current although tells between actors are best effort (a listing sent while the
 * directory's node died is lost): every `sweepEveryMs` the directory asks each line it has not heard of
 * for `checkAfterMs` to say it again (`listingCheck`), and drops a line not heard of for `expireAfterMs`
 * — its lobby or room is gone (an actor that no longer exists never answers).
 */
export const directoryTiming = {
  sweepEveryMs: 30_000,
  checkAfterMs: 60_000,
  expireAfterMs: 150_000,
} as const;

/** The timer of the sweep. */
export const sweepTimerName = "sweep";

function sameLobby(a: DirectoryEntry, b: LobbyListing): boolean {
  return (
    a.mode === b.mode &&
    a.map === b.map &&
    a.freeSeats === b.freeSeats &&
    a.members === b.members &&
    a.playing === b.playing
  );
}

function sameRoom(a: DirectoryRoomEntry, b: RoomListing): boolean {
  return (
    a.mode === b.mode &&
    a.map === b.map &&
    a.seats === b.seats &&
    a.freeSeats === b.freeSeats &&
    a.players === b.players
  );
}

function without<T>(record: Readonly<Record<string, T>>, code: string): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([key]) => key !== code));
}

function empty(state: DirectoryState): boolean {
  return Object.keys(state.listings).length === 0 && Object.keys(state.rooms).length === 0;
}

/** Arms the sweep while there are lines, and drops it once there are none. */
function withSweep(step: Step, now: number): Step {
  const state = step.state;
  if (!empty(state) && state.sweepAt === null) {
    const at = now + directoryTiming.sweepEveryMs;
    return {
      ...step,
      state: { ...state, sweepAt: at },
      effects: [...step.effects, { type: "timer", name: sweepTimerName, at, kind: "game" }],
    };
  }
  if (empty(state) && state.sweepAt !== null) {
    return {
      ...step,
      state: { ...state, sweepAt: null },
      effects: [...step.effects, { type: "cancelTimer", name: sweepTimerName }],
    };
  }
  return step;
}

const answered: Effect[] = [{ type: "reply" }];

function lobbyListing(state: DirectoryState, message: LobbyListing, now: number): Step {
  const current = Object.hasOwn(state.listings, message.code) ? state.listings[message.code] : undefined;
  const { code, mode, map, freeSeats, members, playing } = message;
  const listings = { ...state.listings, [code]: { code, mode, map, freeSeats, members, playing, at: now } };
  // The same line again (a refresh) only moves `at`: written with the next real change, or soon.
  const refresh = current !== undefined && sameLobby(current, message);
  return { state: { ...state, listings }, effects: answered, ...(refresh ? { volatile: true } : {}) };
}

function roomListing(state: DirectoryState, message: RoomListing, now: number): Step {
  const current = Object.hasOwn(state.rooms, message.code) ? state.rooms[message.code] : undefined;
  const { type: _type, ...fields } = message;
  const rooms = { ...state.rooms, [message.code]: { ...fields, at: now } };
  const refresh = current !== undefined && sameRoom(current, message);
  return { state: { ...state, rooms }, effects: answered, ...(refresh ? { volatile: true } : {}) };
}

function unlist(state: DirectoryState, code: string): Step {
  if (!Object.hasOwn(state.listings, code)) return { state, effects: answered };
  return { state: { ...state, listings: without(state.listings, code) }, effects: answered };
}

function roomUnlist(state: DirectoryState, code: string): Step {
  if (!Object.hasOwn(state.rooms, code)) return { state, effects: answered };
  return { state: { ...state, rooms: without(state.rooms, code) }, effects: answered };
}

function check(key: string): Effect {
  return { type: "tell", to: key, message: { type: "listingCheck" } };
}

/** Every line's actor is asked to say its line again: after a restore, tells sent meanwhile may be lost. */
function checkAll(state: DirectoryState): Effect[] {
  return [
    ...Object.keys(state.listings).map((code) => check(lobbyKey(code))),
    ...Object.keys(state.rooms).map((code) => check(roomKey(code))),
  ];
}

/** The sweep: lines silent too long are dropped, quiet ones are asked to say their line again. */
function sweep(state: DirectoryState, now: number): Step {
  const expired = now - directoryTiming.expireAfterMs;
  const due = now - directoryTiming.checkAfterMs;
  const listings = Object.fromEntries(Object.entries(state.listings).filter(([, e]) => e.at > expired));
  const rooms = Object.fromEntries(Object.entries(state.rooms).filter(([, e]) => e.at > expired));
  const effects: Effect[] = [
    ...Object.entries(listings).flatMap(([code, e]) => (e.at <= due ? [check(lobbyKey(code))] : [])),
    ...Object.entries(rooms).flatMap(([code, e]) => (e.at <= due ? [check(roomKey(code))] : [])),
  ];
  // The fired timer is gone: withSweep arms the next one while lines remain.
  return { state: { listings, rooms, sweepAt: null }, effects };
}

function byCode(a: { code: string }, b: { code: string }): number {
  return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
}

/** The browse answer: lines of one mode if asked, with a free seat if asked, at most `browseLimit` each. */
export function browse(
  state: DirectoryState,
  query: { kind?: BrowseKind | undefined; mode?: string | undefined; freeOnly?: boolean | undefined } = {},
): BrowseAnswer {
  const kind = query.kind ?? "all";
  const fits = (e: { mode: string | null; freeSeats: number }): boolean =>
    (query.mode === undefined || e.mode === query.mode) && (query.freeOnly !== true || e.freeSeats > 0);
  const lobbies =
    kind === "rooms"
      ? []
      : Object.values(state.listings)
          .filter(fits)
          .sort(byCode)
          .slice(0, browseLimit)
          .map(({ at: _at, ...line }) => line);
  const rooms =
    kind === "lobbies"
      ? []
      : Object.values(state.rooms)
          .filter(fits)
          .sort(byCode)
          .slice(0, browseLimit)
          .map(({ at: _at, ...line }) => line);
  return { lobbies, rooms };
}

function handle(state: DirectoryState, message: DirectoryMessage | TimerFired | Restored, now: number): Step {
  switch (message.type) {
    case "listing":
      return lobbyListing(state, message, now);
    case "unlist":
      return unlist(state, message.code);
    case "roomListing":
      return roomListing(state, message, now);
    case "roomUnlist":
      return roomUnlist(state, message.code);
    case "browse":
      return { state, effects: [{ type: "reply", value: browse(state, message) }] };
    case "timer":
      return message.name === sweepTimerName ? sweep(state, now) : { state, effects: [] };
    case "restored":
      return { state, effects: checkAll(state) };
  }
}

/** Handles one directory message. */
export function handleDirectory(
  state: DirectoryState,
  message: DirectoryMessage | TimerFired | Restored,
  ctx: ActorContext,
): Step {
  return withSweep(handle(state, message, ctx.now), ctx.now);
}
