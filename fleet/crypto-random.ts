import { randomInt } from "node:crypto";
import type { Random } from "../actors/runtime/index.ts";

/** Unpredictable randomness (lobby codes, tokens) from node:crypto. */
export function cryptoRandom(): Random {
  return {
    int(maxExclusive) {
      assertBound(maxExclusive);
      return randomInt(maxExclusive);
    },
  };
}

/** Throws RangeError unless `maxExclusive` is an integer in [1, 2^48], the range randomInt accepts. */
function assertBound(maxExclusive: number): void {
  if (!Number.isSafeInteger(maxExclusive) || maxExclusive < 1 || maxExclusive > 2 ** 48) {
    throw new RangeError(`random bound ${maxExclusive}: an integer from 1 to 2^48`);
  }
}
