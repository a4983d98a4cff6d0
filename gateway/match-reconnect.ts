import { playerKey, roomKey } from "../actors/common/index.ts";
import type { ActorSystem, AskResult } from "../actors/runtime/index.ts";
import type { Session, SessionSocket } from "./sessions/index.ts";

/**
 * SPEC §4 reconnect: a player who comes back (a resume or a fresh login) while its queue match's room runs
 * is told where it plays (`matchRunning`); a record whose room is gone is cleared, so the player can queue
 * again.
 *
 * The player's registry (`player/<id>`) indexes the running room (`match: { queue, room }`, told by the
 * queue when the room opens and when it ends): one lookup by the player's id, which the gateway can make
 * without knowing the lobby types and without waking (or creating) every type's queue on every login.
 * The queue stays the authority — it holds the record that refuses a new search (`ALREADY_PLAYING`) and
 * the player's token — and the room itself says whether it still runs (a room that ended has stopped: its
 * key answers NOT_FOUND).
 */

/** Where a player of a running queue match plays: the fields of its `matchReady`. */
export interface RunningMatch {
  readonly queue: string;
  readonly matchId: string;
  readonly url: string;
  readonly room: string;
  readonly token: string;
}

/**
 * The player's running match of `queue`, checked against its room: `running` (with where), `none` (the
 * queue plays no match with the player), `gone` (the room no longer exists: the queue was told
 * `roomEnded`, which drops the record and the registries' index) or `unknown` (a timeout, a takeover in
 * progress: proves nothing, nothing is cleared).
 */
export async function checkMatch(
  system: ActorSystem,
  queue: string,
  player: string,
): Promise<{ status: "running"; where: RunningMatch } | { status: "none" | "gone" | "unknown" }> {
  const active = await system.ask(queue, { type: "activeMatch", player });
  if (!active.ok) return { status: active.code === "NOT_FOUND" ? "none" : "unknown" };
  const where = active.value as RunningMatch;
  const room = await system.ask(roomKey(where.room), { type: "status" });
  if (room.ok) return { status: "running", where };
  if (room.code !== "NOT_FOUND") return { status: "unknown" };
  // Gone for good (its node lost it, or its end never reached the queue).
  system.tell(queue, { type: "roomEnded", room: where.room });
  return { status: "gone" };
}

/**
 * The player's running queue match, found through its registry (`asked`: the record as the caller already
 * asked for it) and checked against the queue and the room; null when there is none (a stale index or a
 * gone room is cleared on the way). Never rejects.
 */
export async function runningMatchOf(
  system: ActorSystem,
  player: string,
  asked?: Promise<AskResult>,
): Promise<RunningMatch | null> {
  const found = await (asked ?? system.ask(playerKey(player), { type: "get" }));
  const match = found.ok ? (found.value as { match?: { queue: string; room: string } | null }).match : null;
  if (!match) return null;
  const checked = await checkMatch(system, match.queue, player);
  // The queue no longer plays a match with this player: the index is stale (a lost `matchEnded`).
  if (checked.status === "none") system.tell(playerKey(player), { type: "matchEnded", room: match.room });
  return checked.status === "running" ? checked.where : null;
}

/**
 * After a hello: tells the player where its running match is, or clears a stale record. `asked`: the
 * player's record as the hello already asked for it (its lobby lookup reads the same answer). Never
 * rejects.
 */
export async function locateMatch(
  system: ActorSystem,
  session: Session,
  socket: SessionSocket,
  asked?: Promise<AskResult>,
): Promise<void> {
  const where = await runningMatchOf(system, session.player, asked);
  if (where === null || session.socket !== socket) return;
  session.send({ type: "matchRunning", ...where });
}
