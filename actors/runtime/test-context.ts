import { seededRandom } from "./seeded-random.ts";
import type { ActorContext, NodeView } from "./types.ts";

/**
 * A fake ActorContext for unit tests: a clock that only moves when the test says so and a seeded random
 * source, so a test drives an actor through time with no sleeps and gets the same codes every run.
 */

/** An ActorContext whose clock and node view a test may change between messages. */
export interface TestContext extends ActorContext {
  now: number;
  node: NodeView;
  /** Moves the clock forward by `ms` and returns the new time. */
  advance(ms: number): number;
}

/** What a test may fix; everything has a sensible default. */
export interface TestContextOptions {
  readonly key?: string;
  readonly now?: number;
  readonly seed?: number;
  readonly node?: Partial<NodeView>;
}

/** A fake context: `key` defaults to `lobby/TEST01`, `now` to 1_000_000, `seed` to 1, the node to healthy. */
export function testContext(options: TestContextOptions = {}): TestContext {
  const ctx: TestContext = {
    key: options.key ?? "lobby/TEST01",
    now: options.now ?? 1_000_000,
    random: seededRandom(options.seed ?? 1),
    node: { canOpenRoom: true, draining: false, ...options.node },
    advance(ms) {
      ctx.now += ms;
      return ctx.now;
    },
  };
  return ctx;
}
