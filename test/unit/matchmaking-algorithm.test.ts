import { describe, expect, it } from "vitest";
import {
  admitter,
  alignedWindow,
  lobbyTypesFileSchema,
  passes,
  rangeAt,
  rangeDistance,
  stepAlgorithmSchema,
  type Alignment,
} from "../../actors/matchmaking/index.ts";
import { cursorParty, duel } from "./support/matchmaking-driver.ts";

/** SPEC §3: the step algorithms, the alignments, and the lobby type file. */

describe("alignments", () => {
  it("the seed's table: r = 10 around R = 80", () => {
    const table: [Alignment, number, number][] = [
      ["high", 80, 100],
      ["mid-high", 75, 95],
      ["center", 70, 90],
      ["mid-low", 65, 85],
      ["low", 60, 80],
    ];
    for (const [alignment, min, max] of table) expect(alignedWindow(80, 10, alignment)).toEqual({ min, max });
  });
});

describe("ranges by step", () => {
  const ranges = [5, 5, 7.5, 7.5, 10];

  it("step n uses ranges[n]", () => {
    expect([0, 1, 2, 3, 4].map((n) => rangeAt(ranges, n))).toEqual(ranges);
  });

  it("past the end the last range is used", () => {
    expect(rangeAt(ranges, 5)).toBe(10);
    expect(rangeAt(ranges, 99)).toBe(10);
  });

  it("ranged-percent is a percentage of the rating, ranged-absolute the value itself", () => {
    expect(rangeDistance("ranged-percent", 80, 12.5)).toBe(10);
    expect(rangeDistance("ranged-absolute", 80, 12.5)).toBe(12.5);
  });

  it("a ranged-percent window widens step by step", () => {
    const algorithm = stepAlgorithmSchema.parse({
      strategy: "ranged-percent",
      alignment: "center",
      ranges: [5, 10, 25],
    });
    const seeker = { rating: 80, pingData: {} };
    const lobby = { rating: 90, region: "eu" };
    // ±4, ±8, ±20, then ±20 forever.
    expect([0, 1, 2, 3].map((step) => passes(algorithm, step, seeker, lobby))).toEqual([
      false,
      false,
      true,
      true,
    ]);
    expect(passes(algorithm, 0, seeker, { rating: 84, region: "eu" })).toBe(true);
  });

  it("a ranged-absolute window with the high alignment never takes a lower rating", () => {
    const algorithm = stepAlgorithmSchema.parse({
      strategy: "ranged-absolute",
      alignment: "high",
      ranges: [1000],
    });
    const seeker = { rating: 80, pingData: {} };
    expect(passes(algorithm, 0, seeker, { rating: 79, region: "eu" })).toBe(false);
    expect(passes(algorithm, 0, seeker, { rating: 2080, region: "eu" })).toBe(true);
  });
});

describe("compound: ping tiers, then rating", () => {
  const algorithm = stepAlgorithmSchema.parse({
    strategy: "compound",
    algos: [
      { criteria: "ping", strategy: "ranged-percent", alignment: "center" },
      { criteria: "rating", strategy: "ranged-percent", alignment: "center" },
    ],
    "compound-ranges": [
      [30, [5, 7.5]],
      [60, [5, 5, 7.5, 7.5, 10, 10]],
      [130, [5, 7.5, 10, 12.5, 15]],
    ],
  });
  const seeker = { rating: 100, pingData: { eu: 20, us: 50, asia: 120, mars: 400 } };

  it("a lobby's ping is the player's ping to the lobby's region; its tier gives the ranges", () => {
    // eu (20 ms) tier 1: ±5, ±7.5 then ±7.5.
    expect(passes(algorithm, 0, seeker, { rating: 105, region: "eu" })).toBe(true);
    expect(passes(algorithm, 0, seeker, { rating: 107, region: "eu" })).toBe(false);
    expect(passes(algorithm, 5, seeker, { rating: 107, region: "eu" })).toBe(true);
    // us (50 ms) tier 2: ±5, ±5, ±7.5 …
    expect(passes(algorithm, 1, seeker, { rating: 107, region: "us" })).toBe(false);
    expect(passes(algorithm, 2, seeker, { rating: 107, region: "us" })).toBe(true);
    // asia (120 ms) tier 3: ±12.5 at step 3.
    expect(passes(algorithm, 3, seeker, { rating: 112, region: "asia" })).toBe(true);
  });

  it("a lobby beyond every tier, or in a region with no ping, never passes", () => {
    expect(passes(algorithm, 9, seeker, { rating: 100, region: "mars" })).toBe(false);
    expect(passes(algorithm, 9, seeker, { rating: 100, region: "moon" })).toBe(false);
  });

  it("a compound algorithm without a rating criterion is refused", () => {
    const parsed = stepAlgorithmSchema.safeParse({
      strategy: "compound",
      algos: [{ criteria: "ping", strategy: "ranged-absolute", alignment: "center" }],
      "compound-ranges": [[30, [5]]],
    });
    expect(parsed.success).toBe(false);
  });
});

describe("lobby types file", () => {
  it("reads the seed's type and fills the defaults", () => {
    const file = lobbyTypesFileSchema.parse({
      lobbyTypes: [cursorParty, { ...duel, accept: { timeoutSecs: 10 }, filter: "levels" }],
    });
    expect(file.lobbyTypes[0]?.teams[0]).toEqual({ code: "all", minUsers: 1, maxUsers: 8, autoAssign: true });
    expect(file.lobbyTypes[1]?.roomConfig).toEqual({});
    expect(file.lobbyTypes[1]?.accept).toEqual({ timeoutSecs: 10 });
  });

  it("refuses duplicate ids, duplicate team codes, minUsers above maxUsers, unknown fields and onTime after tooLate", () => {
    const bad = [
      { lobbyTypes: [cursorParty, cursorParty] },
      { lobbyTypes: [{ ...duel, teams: [duel.teams[0], duel.teams[0]] }] },
      { lobbyTypes: [{ ...duel, teams: [{ code: "x", minUsers: 3, maxUsers: 2, autoAssign: true }] }] },
      { lobbyTypes: [{ ...duel, colour: "red" }] },
      { lobbyTypes: [{ ...duel, rules: { ...duel.rules, onTimeStartSecs: 200 } }] },
    ];
    for (const file of bad)
      expect(lobbyTypesFileSchema.safeParse(file).success, JSON.stringify(file)).toBe(false);
  });
});

describe("admitter: passes, made once for many candidates", () => {
  it("admits exactly what passes admits, for every strategy, step and candidate", () => {
    const algorithms = [
      { strategy: "ranged-absolute", alignment: "center", ranges: [10, 20] },
      { strategy: "ranged-percent", alignment: "mid-low", ranges: [5, 15] },
      {
        strategy: "compound",
        algos: [
          { criteria: "ping", strategy: "ranged-absolute", alignment: "center" },
          { criteria: "rating", strategy: "ranged-absolute", alignment: "high" },
        ],
        "compound-ranges": [
          [50, [10, 20]],
          [150, [30, 60]],
        ],
      },
    ].map((a) => stepAlgorithmSchema.parse(a));
    const seeker = { rating: 100, pingData: { eu: 20, us: 120 } };
    for (const algorithm of algorithms) {
      for (const step of [0, 1, 5]) {
        const test = admitter(algorithm, step, seeker);
        expect(test.needsRegion).toBe(algorithm.strategy === "compound");
        for (let rating = 20; rating <= 220; rating += 5) {
          for (const region of ["eu", "us", "ap"]) {
            const candidate = { rating, region };
            expect(test.admits(candidate)).toBe(passes(algorithm, step, seeker, candidate));
          }
        }
      }
    }
  });
});
