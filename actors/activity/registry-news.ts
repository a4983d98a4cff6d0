import { playerKey } from "../common/index.ts";
import type { Effect } from "../runtime/index.ts";
import type { Step } from "./activity-env.ts";
import type { ActivityLobbyState } from "./activity-lobby-state.ts";

/**
 * What a lobby tells the player registry (`player/<id>`), as private lobbies do: `joined` when a player is
 * taken in, `left` when it is out (it left, its grace ran out, it loaded into the room, or the lobby
 * stopped with it still listed). The registry keeps one lobby per player, private or activity, and tells
 * the previous one `leave`: so a player is in one lobby across the cluster, whichever gateway it used.
 */
export function withRegistryNews(before: ActivityLobbyState, transition: Step, key: string): Step {
  const stopped = transition.effects.some((e) => e.type === "stop");
  const was = new Set(before.players.map((p) => p.id));
  const is = new Set(stopped ? [] : transition.state.players.map((p) => p.id));
  const news: Effect[] = [];
  for (const id of is) {
    if (!was.has(id)) news.push({ type: "tell", to: playerKey(id), message: { type: "joined", lobby: key } });
  }
  // A lobby that stops forgets everyone it still lists (a refused message never stops, so `before` is
  // the list the stop ends).
  const listed = stopped ? new Set([...was, ...transition.state.players.map((p) => p.id)]) : was;
  for (const id of listed) {
    if (!is.has(id)) news.push({ type: "tell", to: playerKey(id), message: { type: "left", lobby: key } });
  }
  if (news.length === 0) return transition;
  const effects = transition.effects.filter((e) => e.type !== "stop");
  return {
    state: transition.state,
    effects: [...effects, ...news, ...(stopped ? [{ type: "stop" } as const] : [])],
  };
}
