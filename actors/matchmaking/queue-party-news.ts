import { playerKey } from "../common/index.ts";
import type { Effect } from "../runtime/index.ts";
import type { QueueStep } from "./queue-options.ts";
import type { QueueState } from "./queue-state.ts";

/**
 * A party's search ends however its entry leaves the queue — placed, matched, failed, cancelled or
 * declined — and its members' registries keep them from other lobbies and searches meanwhile: each
 * player of a party entry that left is told `searchEnded`, so its registry lets it go.
 */
export function withPartyNews(before: QueueState, step: QueueStep, queue: string): QueueStep {
  if (step.state.entries === before.entries) return step;
  // Most entries search alone: a queue without parties pays one pass, and no set.
  const parties = before.entries.filter((e) => e.party.length > 0);
  if (parties.length === 0) return step;
  const still = new Set(step.state.entries.map((e) => e.id));
  const news: Effect[] = [];
  for (const entry of parties) {
    if (still.has(entry.id)) continue;
    for (const p of [entry.player, ...entry.party]) {
      news.push({
        type: "tell",
        to: playerKey(p.id),
        message: { type: "searchEnded", queue, entry: entry.id },
      });
    }
  }
  return news.length === 0 ? step : { state: step.state, effects: [...step.effects, ...news] };
}
