import { playerKey } from "../../actors/common/index.ts";
import type { Departure, Entry } from "../../actors/player/index.ts";
import { isRetryable, type ActorSystem, type AskResult } from "../../actors/runtime/index.ts";
import { checkMatch } from "../match-reconnect.ts";
import type { Session } from "../sessions/index.ts";

/**
 * Every way in — a private lobby, an activity lobby, a queue search, a matched lobby's create, a room —
 * asks the player's registry first (`enter`): its one rule (actors/player/whereabouts.ts) says what the
 * entry leaves, or refuses it. The registry records the entry as an intent; the gateway carries it out
 * and reports how it went (`entered` / `enterFailed`), and the registry then drives the departures.
 */

/** What a made entry tells the registry besides the entry itself. */
export interface EntryReport {
  /** The queue's entry id of a search. */
  readonly queueEntry?: string;
  /** The matched lobby a create opened. */
  readonly lobby?: string;
  /** The room a direct create or join seated the player in. */
  readonly room?: string;
}

/** The registry's answer to an entry: refused, or allowed with the departures it will cause. */
export type EntryAnswer =
  | { readonly ok: false; readonly refusal: AskResult }
  | { readonly ok: true; readonly leave: readonly Departure[] };

/** Asks the rule about `entry` for one player, `seated` being the room the gateway sees it in. */
export async function askEntry(
  system: ActorSystem,
  player: string,
  entry: Entry,
  seated: string | null,
): Promise<EntryAnswer> {
  const first = await system.ask(playerKey(player), { type: "enter", entry, seated });
  const asked =
    !first.ok && first.code === "ALREADY_PLAYING" && seated === null
      ? await againWithoutGoneRooms(system, player, entry, first)
      : first;
  if (!asked.ok) return { ok: false, refusal: asked };
  return { ok: true, leave: (asked.value as { leave: Departure[] }).leave };
}

/**
 * Refused for a room the registry holds (the queue match's, or one sat down in directly): a record whose
 * room is gone (its end never reached the registry) is cleared and the rule asked once more, so a player
 * is never kept out by a room that no longer exists. A room that runs, or cannot be checked now, keeps
 * the refusal.
 */
async function againWithoutGoneRooms(
  system: ActorSystem,
  player: string,
  entry: Entry,
  refusal: AskResult,
): Promise<AskResult> {
  const found = await system.ask(playerKey(player), { type: "get" });
  if (!found.ok) return refusal;
  const record = found.value as { match?: { queue: string; room: string } | null; room?: string | null };
  let cleared = false;
  if (typeof record.room === "string") {
    const status = await system.ask(record.room, { type: "status" });
    if (status.ok || status.code !== "NOT_FOUND") return refusal;
    system.tell(playerKey(player), { type: "seatLeft", room: record.room });
    cleared = true;
  }
  const match = record.match;
  if (match) {
    const checked = await checkMatch(system, match.queue, player);
    if (checked.status !== "none" && checked.status !== "gone") return refusal;
    system.tell(playerKey(player), { type: "matchEnded", room: match.room });
    cleared = true;
  }
  return cleared ? system.ask(playerKey(player), { type: "enter", entry, seated: null }) : refusal;
}

/** How often, and how long apart at least, a failed entry's report is sent while it does not arrive. */
const failureReportTries = 6;
const failureReportWaitMs = 250;

/**
 * Tells the registry how the entry went: made (the departures start) or failed (nothing changes). An
 * entry refused for good is asked until the registry takes the report (a tell is lost while the
 * registry's owner is being taken over): its intent, left to expire, would be taken as made and take the
 * player out of where it is. A retryable failure is told once: the client's retry asks the same entry
 * again and reports that.
 */
export function reportEntry(
  system: ActorSystem,
  player: string,
  entry: Entry,
  result: AskResult,
  report: EntryReport = {},
): void {
  if (result.ok) system.tell(playerKey(player), { type: "entered", entry, ...report });
  else if (isRetryable(result.code) || result.code === "TIMEOUT")
    system.tell(playerKey(player), { type: "enterFailed", entry });
  else void reportFailure(system, player, entry);
}

/** Asks the registry to drop a failed entry's intent until it answers (or the tries run out). */
async function reportFailure(system: ActorSystem, player: string, entry: Entry): Promise<void> {
  for (let tries = 1; ; tries++) {
    const answer = await system.ask(playerKey(player), { type: "enterFailed", entry });
    if (answer.ok || !isRetryable(answer.code) || tries >= failureReportTries) return;
    const waitMs = Math.max(failureReportWaitMs, answer.retryAfterMs ?? 0);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

/**
 * Runs an entry of the session's player through the rule: asks it, carries the entry out with `enter`
 * when allowed, and reports the outcome. The session forgets the places the rule takes the player out of
 * (the registry tells them), so its requests no longer go there.
 */
export async function throughRule(
  system: ActorSystem,
  session: Session,
  entry: Entry,
  enter: () => Promise<AskResult>,
  reportOf: (value: unknown) => EntryReport = () => ({}),
): Promise<AskResult> {
  const answer = await askEntry(system, session.player, entry, session.room);
  if (!answer.ok) return answer.refusal;
  const result = await enter();
  reportEntry(system, session.player, entry, result, result.ok ? reportOf(result.value) : {});
  if (result.ok) forgetDeparted(session, answer.leave);
  return result;
}

/** The session no longer counts itself in the lobbies it was taken out of. */
export function forgetDeparted(session: Session, leave: readonly Departure[]): void {
  for (const departure of leave) {
    if (!("lobby" in departure)) continue;
    if (session.lobby === departure.lobby) {
      session.lastLobby = session.lobby;
      session.lobby = null;
    }
    if (session.activity === departure.lobby) session.activity = null;
  }
}
