import { defineConfig } from "vitest/config";

/** Separate projects so the fast suites can run alone: `vitest run --project unit`. */
export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      { test: { name: "contract", include: ["test/contract/**/*.test.ts"] } },
      { test: { name: "integration", include: ["test/integration/**/*.test.ts"], testTimeout: 20_000 } },
    ],
  },
});
