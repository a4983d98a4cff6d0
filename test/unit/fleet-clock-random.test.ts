import { afterEach, describe, expect, it, vi } from "vitest";
import { cryptoRandom, realScheduler, seededRandom } from "../../fleet/index.ts";

describe("realScheduler", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("fires at the wall-clock time, at once when it is past, and not after cancel", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const scheduler = realScheduler();
    const fired: string[] = [];
    scheduler.at(1_000_500, () => fired.push("later"));
    scheduler.at(999_000, () => fired.push("past"));
    const cancel = scheduler.at(1_000_200, () => fired.push("cancelled"));
    cancel();
    expect(scheduler.now()).toBe(1_000_000);
    vi.advanceTimersByTime(0);
    expect(fired).toEqual(["past"]);
    vi.advanceTimersByTime(499);
    expect(fired).toEqual(["past"]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(["past", "later"]);
  });

  it("chains delays longer than setTimeout takes (2^31 − 1 ms) instead of firing early", () => {
    vi.useFakeTimers({ now: 0 });
    const scheduler = realScheduler();
    const fired: number[] = [];
    const at = 2 ** 31 + 5_000;
    const cancelled = scheduler.at(at + 1, () => fired.push(-1));
    scheduler.at(at, () => fired.push(Date.now()));
    vi.advanceTimersByTime(10);
    vi.advanceTimersByTime(2 ** 31 - 1);
    expect(fired).toEqual([]);
    cancelled();
    vi.advanceTimersByTime(5_100);
    expect(fired).toEqual([at]);
  });
});

describe("random sources", () => {
  it("seededRandom repeats its sequence for a seed and stays in range", () => {
    const draws = (seed: number): number[] => {
      const random = seededRandom(seed);
      return Array.from({ length: 50 }, () => random.int(36));
    };
    expect(draws(42)).toEqual(draws(42));
    expect(draws(42)).not.toEqual(draws(43));
    expect(draws(7).every((n) => Number.isInteger(n) && n >= 0 && n < 36)).toBe(true);
  });

  it("cryptoRandom stays in range and refuses an empty range", () => {
    const random = cryptoRandom();
    const draws = Array.from({ length: 200 }, () => random.int(6));
    expect(draws.every((n) => Number.isInteger(n) && n >= 0 && n < 6)).toBe(true);
    expect(new Set(draws).size).toBe(6);
    expect(() => random.int(0)).toThrow(RangeError);
    expect(() => random.int(1.5)).toThrow(RangeError);
  });
});
