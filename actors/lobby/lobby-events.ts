import type { Effect, StudioEventName } from "../runtime/index.ts";
import type { LobbyState } from "./lobby-state.ts";
import { publicValues } from "./lobby-data-values.ts";

/**
 * The events a lobby owes the studio's backend (docs/server-api.md "Events"), read off the change a
 * transition made: created, started, each member gone, ended. The runtime publishes them once the change
 * is written.
 */

/** Why a member left, by the message whose handling took it out. */
export type LeaveReason = "left" | "kicked" | "timeout" | "disconnected" | "roomEnded";

const reasons: Readonly<Record<string, LeaveReason>> = {
  leave: "left",
  kick: "kicked",
  timer: "timeout",
  connection: "disconnected",
  roomEnded: "roomEnded",
};

function event(name: StudioEventName, data: Record<string, unknown>): Effect {
  return { type: "event", name, data };
}

function playersOf(state: LobbyState): string[] {
  return state.members.map((m) => m.player);
}

/** The events of one transition of a lobby (`before` null: it was just created). */
export function lobbyEvents(
  before: LobbyState | null,
  after: LobbyState,
  message: string | null,
  stopped: boolean,
): Effect[] {
  const players = playersOf(after);
  const code = after.code;
  if (before === null) {
    const metadata = publicValues(after.data);
    return [
      event("lobby.created", {
        code,
        players,
        host: after.host,
        public: after.public,
        // The public data, as `metadata` was before (null when there is none).
        metadata: Object.keys(metadata).length === 0 ? null : metadata,
      }),
    ];
  }
  const effects: Effect[] = [];
  if (before.room === null && after.room !== null) {
    effects.push(event("lobby.started", { code, players, room: after.room.code, mode: after.room.mode }));
  }
  const staying = new Set(players);
  const reason = (message === null ? undefined : reasons[message]) ?? "left";
  for (const member of before.members) {
    if (!staying.has(member.player)) {
      effects.push(event("player.left", { code, players, player: member.player, reason }));
    }
  }
  if (stopped) effects.push(event("lobby.ended", { code, players }));
  return effects;
}
