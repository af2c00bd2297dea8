import type { LoadTestOptions } from "../../loadtest/types.ts";

/** Options of a short plain load run for tests (arena, 20 Hz input, no retries), with `overrides` on top. */
export function shortRun(overrides: Partial<LoadTestOptions> & Pick<LoadTestOptions, "rooms" | "clients" | "seconds" | "warmupSeconds">): LoadTestOptions {
  return { scenario: "arena", inputHz: 20, findCapacity: false, steps: [], overloadSteps: 0, retries: 0, seed: 1, ...overrides };
}
