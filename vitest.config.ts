import { defineConfig } from "vitest/config";

/**
 * Two projects, run one after the other by `npm test`: `main` (every test file, in parallel) and
 * `hostile` (attacks on a real server process whose numbers are about the process's own schedule, so
 * they run alone, one file at a time, with nothing else on the machine's cores).
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: "main", include: ["test/**/*.test.ts"], exclude: ["test/hostile/**"] } },
      { extends: true, test: { name: "hostile", include: ["test/hostile/**/*.test.ts"], fileParallelism: false } },
    ],
  },
});
