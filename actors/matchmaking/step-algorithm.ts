import { z } from "zod";

/**
 * The step algorithms of SPEC §3: a rating window that widens step by step, aligned around the player's
 * rating, optionally preceded by ping tiers (`compound`). Pure arithmetic, so each rule is one test.
 */

/** How a range sits around the rating R: high [R, R+2r] … low [R−2r, R]. */
export const alignmentSchema = z.enum(["high", "mid-high", "center", "mid-low", "low"]);

/** An alignment. */
export type Alignment = z.output<typeof alignmentSchema>;

/** How a range value becomes a rating distance. */
export const rangedStrategySchema = z.enum(["ranged-percent", "ranged-absolute"]);

/** A ranged strategy. */
export type RangedStrategy = z.output<typeof rangedStrategySchema>;

const rangesSchema = z.array(z.number().min(0)).min(1).max(100);

/** `ranged-percent` / `ranged-absolute`: one window per step, the last one past the end. */
export const rangedAlgorithmSchema = z.strictObject({
  strategy: rangedStrategySchema,
  alignment: alignmentSchema,
  ranges: rangesSchema,
});

/** A criterion of a compound algorithm; the ping criterion's tiers come from `compound-ranges`. */
export const criterionSchema = z.strictObject({
  criteria: z.enum(["ping", "rating"]),
  strategy: rangedStrategySchema,
  alignment: alignmentSchema,
});

/** `compound`: ping tiers, then the rating window of the lobby's tier. */
export const compoundAlgorithmSchema = z
  .strictObject({
    strategy: z.literal("compound"),
    algos: z.array(criterionSchema).min(1).max(2),
    "compound-ranges": z
      .array(z.tuple([z.number().min(0), rangesSchema]))
      .min(1)
      .max(16),
  })
  .refine((a) => a.algos.some((c) => c.criteria === "rating"), {
    message: "a compound algorithm needs a rating criterion",
    path: ["algos"],
  });

/** Any step algorithm a request may carry. */
export const stepAlgorithmSchema = z.union([rangedAlgorithmSchema, compoundAlgorithmSchema]);

/** A step algorithm. */
export type StepAlgorithm = z.output<typeof stepAlgorithmSchema>;

/** A closed rating interval. */
export interface RatingWindow {
  readonly min: number;
  readonly max: number;
}

/** The range value for step `step` (0-based): `ranges[step]`, or the last one past the end. */
export function rangeAt(ranges: readonly number[], step: number): number {
  const value = ranges[Math.min(Math.max(0, step), ranges.length - 1)];
  if (value === undefined) throw new RangeError("ranges must not be empty");
  return value;
}

/** The distance r a range value means for a rating: a percentage of it, or the value itself. */
export function rangeDistance(strategy: RangedStrategy, rating: number, value: number): number {
  return strategy === "ranged-percent" ? (rating * value) / 100 : value;
}

const lowFactor: Record<Alignment, number> = { high: 0, "mid-high": 0.5, center: 1, "mid-low": 1.5, low: 2 };

/** The window of a distance r around a rating R, aligned as SPEC §3 says. */
export function alignedWindow(rating: number, range: number, alignment: Alignment): RatingWindow {
  const below = lowFactor[alignment];
  return { min: rating - below * range, max: rating + (2 - below) * range };
}

/** What the algorithm reads of the player. */
export interface Seeker {
  readonly rating: number;
  /** Round trip in ms to each region. */
  readonly pingData: Readonly<Record<string, number>>;
}

/** What the algorithm reads of a candidate lobby. */
export interface Candidate {
  readonly rating: number;
  readonly region: string;
}

function inWindow(rating: number, window: RatingWindow): boolean {
  return rating >= window.min && rating <= window.max;
}

/**
 * The ping tier a lobby falls in: the first `[pingLimit, ranges]` whose limit its ping does not exceed,
 * where its ping is the player's ping to the lobby's region. No ping for that region: no tier.
 */
export function pingTier(
  tiers: readonly (readonly [number, readonly number[]])[],
  seeker: Seeker,
  region: string,
): readonly number[] | undefined {
  const ping = seeker.pingData[region];
  if (ping === undefined) return undefined;
  return tiers.find(([limit]) => ping <= limit)?.[1];
}

/** True when the candidate lobby passes the algorithm at this step. */
export function passes(algorithm: StepAlgorithm, step: number, seeker: Seeker, lobby: Candidate): boolean {
  if (algorithm.strategy !== "compound") {
    const r = rangeDistance(algorithm.strategy, seeker.rating, rangeAt(algorithm.ranges, step));
    return inWindow(lobby.rating, alignedWindow(seeker.rating, r, algorithm.alignment));
  }
  const usesPing = algorithm.algos.some((c) => c.criteria === "ping");
  const rating = algorithm.algos.find((c) => c.criteria === "rating");
  if (rating === undefined) return false;
  const tiers = algorithm["compound-ranges"];
  // Without a ping criterion the first tier's ranges are the rating's.
  const ranges = usesPing ? pingTier(tiers, seeker, lobby.region) : tiers[0]?.[1];
  if (ranges === undefined) return false;
  const r = rangeDistance(rating.strategy, seeker.rating, rangeAt(ranges, step));
  return inWindow(lobby.rating, alignedWindow(seeker.rating, r, rating.alignment));
}

/**
 * `passes` for one seeker at one step, made once for many candidates (a queue's step tries every
 * waiting entry): a ranged algorithm's window is computed once, not per candidate, and given as `bounds`
 * (no candidate outside it passes; absent for `compound`, whose window depends on the candidate's
 * region). `needsRegion` is false when the candidate's region is never read.
 */
export function admitter(
  algorithm: StepAlgorithm,
  step: number,
  seeker: Seeker,
): {
  readonly needsRegion: boolean;
  readonly bounds?: RatingWindow;
  admits(candidate: Candidate): boolean;
} {
  if (algorithm.strategy !== "compound") {
    const r = rangeDistance(algorithm.strategy, seeker.rating, rangeAt(algorithm.ranges, step));
    const window = alignedWindow(seeker.rating, r, algorithm.alignment);
    return { needsRegion: false, bounds: window, admits: (candidate) => inWindow(candidate.rating, window) };
  }
  return { needsRegion: true, admits: (candidate) => passes(algorithm, step, seeker, candidate) };
}
