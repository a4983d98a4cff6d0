import type { NodeState } from "./ports.ts";
import type { ActorContext, Random } from "./types.ts";

/** What a handler of `key` sees besides its state and message, at `now`. */
export function actorContext(node: NodeState, random: Random, key: string, now: number): ActorContext {
  return {
    key,
    now,
    random,
    node: {
      canOpenRoom: node.canOpenRoom(),
      draining: node.draining(),
      get roomHost() {
        return node.roomHost?.();
      },
    },
  };
}
