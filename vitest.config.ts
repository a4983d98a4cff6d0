import { defineConfig } from "vitest/config";

/** CI asks for a JSON report (FOYER_VITEST_JSON) to print its closing "N passed, N failed" line. */
const json = process.env.FOYER_VITEST_JSON;

/** Separate projects so the fast suites can run alone: `vitest run --project unit`. */
export default defineConfig({
  test: {
    ...(json ? { reporters: ["default", "json"], outputFile: { json } } : {}),
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      { test: { name: "contract", include: ["test/contract/**/*.test.ts"] } },
      { test: { name: "integration", include: ["test/integration/**/*.test.ts"], testTimeout: 20_000 } },
      // Real nats-server processes and several nodes: slower, so a developer can leave them out.
      {
        test: {
          name: "cluster",
          include: ["test/cluster/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
