import { seededRandom } from "../../actors/runtime/index.ts";

/** The world's one random source: every draw of a run comes from it, in event order, so a seed replays. */
export class SimRandom {
  private readonly source;

  constructor(seed: number) {
    this.source = seededRandom(seed);
  }

  /** An integer in [0, maxExclusive). */
  int(maxExclusive: number): number {
    return this.source.int(maxExclusive);
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + this.source.int(max - min + 1);
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.source.int(1_000_000) < p * 1_000_000;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.source.int(items.length)];
    if (item === undefined) throw new RangeError("pick from an empty list");
    return item;
  }
}
