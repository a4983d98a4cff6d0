import { playerKey, roomKey } from "../actors/lobby/index.ts";
import type { ActorSystem } from "../actors/runtime/index.ts";
import type { Session, SessionSocket } from "./session-registry.ts";

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
export async function locateMatch(
  system: ActorSystem,
  session: Session,
  socket: SessionSocket,
): Promise<void> {
  const player = session.player;
  const found = await system.ask(playerKey(player), { type: "get" });
  const match = found.ok ? (found.value as { match?: { queue: string; room: string } | null }).match : null;
  if (!match || session.socket !== socket) return;
  const active = await system.ask(match.queue, { type: "activeMatch", player });
  if (!active.ok) {
    // The queue no longer plays a match with this player: the index is stale (a lost `matchEnded`).
    if (active.code === "NOT_FOUND") system.tell(playerKey(player), { type: "matchEnded", room: match.room });
    return;
  }
  const where = active.value as { queue: string; matchId: string; url: string; room: string; token: string };
  const room = await system.ask(roomKey(where.room), { type: "status" });
  if (!room.ok) {
    // Gone for good (its node lost it, or its end never reached the queue): the queue drops the record and
    // tells the registries. Any other failure (a takeover in progress, a timeout) proves nothing: keep it.
    if (room.code === "NOT_FOUND") system.tell(match.queue, { type: "roomEnded", room: where.room });
    return;
  }
  if (session.socket !== socket) return;
  session.send({ type: "matchRunning", ...where });
}
