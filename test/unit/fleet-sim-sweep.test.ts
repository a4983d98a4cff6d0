import { describe, it } from "vitest";
import { replaySeed, sweep, sweepSeeds } from "./support/fleet-sim-sweep.ts";

// The second half of the fleet simulation's CI sweep (the first, and the focused tests, are in
// fleet-sim.test.ts): a file of its own so the two halves run on two workers.

describe("fleet simulation, second half of the sweep", () => {
  const seeds = sweepSeeds(1);
  it.skipIf(replaySeed !== undefined)(
    `keeps every invariant over seeds ${seeds[0] ?? "-"}–${seeds.at(-1) ?? "-"}`,
    async () => {
      await sweep(seeds);
    },
    600_000,
  );
});
