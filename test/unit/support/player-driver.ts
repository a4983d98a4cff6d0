import { expect } from "vitest";
import { playerKind, type PlayerState } from "../../../actors/player/index.ts";
import { testContext } from "../../../actors/runtime/test-context.ts";
import type { Effect } from "../../../actors/runtime/types.ts";

const kind = playerKind();

/**
 * A player's registry driven message by message on a fixed clock, from a fresh state or from `from` (a
 * restored snapshot): each message must parse, and `send` answers its effects.
 */
export function playerRegistry(id = "alice", from?: PlayerState) {
  const ctx = testContext({ key: `player/${id}`, now: 1_000_000 });
  let state: PlayerState = from ?? kind.create(undefined, ctx).state;
  return {
    ctx,
    get state() {
      return state;
    },
    send(message: unknown): readonly Effect[] {
      const parsed = kind.parse(message);
      expect(parsed, JSON.stringify(message)).toBeDefined();
      const t = kind.handle(state, parsed!, ctx);
      state = t.state;
      return t.effects;
    },
  };
}
