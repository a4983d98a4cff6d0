import { z } from "zod";
import type { Effect } from "../runtime/index.ts";
import type { Step } from "./activity-env.ts";
import { activityDirectoryKey, activityLobbyKeySchema } from "./activity-keys.ts";
import type { ActivityLobbyState } from "./activity-lobby-state.ts";
import { capacity } from "./activity-settings.ts";

/** What a lobby tells its activity's directory, so the directory sends joiners to lobbies with room. */

/** A waiting lobby's count changed. `version` counts the lobby's reports, so a late one is recognised. */
export const lobbyStatusSchema = z.strictObject({
  type: z.literal("lobbyStatus"),
  lobby: activityLobbyKeySchema,
  players: z.number().int().min(0),
  /** The lobby takes players: it has not started and is below its capacity. */
  open: z.boolean(),
  version: z.number().int().min(1),
});

/** A lobby's status report. */
export type LobbyStatus = z.output<typeof lobbyStatusSchema>;

/** The lobby takes no more players: it started, or it closed with its last player. Final. */
export const lobbyClosedSchema = z.strictObject({
  type: z.literal("lobbyClosed"),
  lobby: activityLobbyKeySchema,
});

function isOpen(state: ActivityLobbyState): boolean {
  return state.stage.phase === "waiting" && state.players.length < capacity(state.settings);
}

/**
 * Adds the report a transition owes the directory: `lobbyClosed` when a waiting lobby starts or stops,
 * `lobbyStatus` (with the next report number) when its player count changed. Keeps `stop` last, so the
 * runtime carries out everything else before it deletes the actor.
 */
export function withReport(before: ActivityLobbyState, transition: Step, key: string): Step {
  const after = transition.state;
  const stopped = transition.effects.some((e) => e.type === "stop");
  const directory = activityDirectoryKey(after.settings.id);
  const effects: Effect[] = transition.effects.filter((e) => e.type !== "stop");
  let state = after;
  if (before.stage.phase === "waiting" && (stopped || after.stage.phase === "started")) {
    effects.push({ type: "tell", to: directory, message: { type: "lobbyClosed", lobby: key } });
  } else if (after.stage.phase === "waiting" && before.players.length !== after.players.length) {
    state = { ...after, reports: after.reports + 1 };
    const status: LobbyStatus = {
      type: "lobbyStatus",
      lobby: key,
      players: after.players.length,
      open: isOpen(after),
      version: state.reports,
    };
    effects.push({ type: "tell", to: directory, message: status });
  } else if (!stopped) {
    return transition;
  }
  if (stopped) effects.push({ type: "stop" });
  return { state, effects };
}
