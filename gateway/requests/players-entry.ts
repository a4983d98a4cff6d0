import { playerKey, roomKey } from "../../actors/common/index.ts";
import type { Entry } from "../../actors/player/index.ts";
import type { ActorSystem, AskResult } from "../../actors/runtime/index.ts";
import { askEntry } from "./entry-rule.ts";

/**
 * An entry made for players without their sessions — the studio's server API opening a lobby with them —
 * goes through the same rule as theirs (entry-rule.ts): every player's registry is asked first, and one
 * refusal (a player seated in a room, held by its party's search) refuses the whole entry with the
 * rule's code, naming the player. Allowed, the entry is recorded as each one's intent; the lobby's own
 * `joined` completes it (and starts the departures), or `release` drops it when the entry failed.
 */

/** The players' entry once every registry allowed it. */
export interface AdmittedPlayers {
  /** The entry failed after all: each registry drops its intent and the players stay where they were. */
  release(): void;
}

/** The room a player is seated in as its private lobby sees it (a lobby's room is the lobby's to know). */
async function seatedOf(system: ActorSystem, player: string): Promise<string | null> {
  const found = await system.ask(playerKey(player), { type: "get" });
  const lobby = found.ok ? (found.value as { lobby?: unknown } | null)?.lobby : undefined;
  if (typeof lobby !== "string" || !lobby.startsWith("lobby/")) return null;
  const seen = await system.ask(lobby, { type: "view" });
  if (!seen.ok) return null;
  const view = seen.value as {
    members?: { player: string; inRoom: boolean }[];
    room?: { code: string } | null;
  };
  const member = view.members?.find((m) => m.player === player);
  return member?.inRoom === true && view.room ? roomKey(view.room.code) : null;
}

/** Asks every player's rule about `entry`; the first refusal (with the player named) or the admission. */
export async function admitPlayers(
  system: ActorSystem,
  players: readonly string[],
  entry: Entry,
): Promise<{ ok: true; admitted: AdmittedPlayers } | { ok: false; refusal: AskResult }> {
  const allowed: string[] = [];
  const release = (): void => {
    for (const id of allowed) system.tell(playerKey(id), { type: "enterFailed", entry });
  };
  for (const player of players) {
    const answer = await askEntry(system, player, entry, await seatedOf(system, player));
    if (!answer.ok) {
      release();
      const refusal = answer.refusal;
      return {
        ok: false,
        refusal: refusal.ok ? refusal : { ...refusal, message: `${player}: ${refusal.message}` },
      };
    }
    allowed.push(player);
  }
  return { ok: true, admitted: { release } };
}
