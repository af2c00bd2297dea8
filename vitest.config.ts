import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { defineConfig } from "vitest/config";
import { MISSING_TOOLS_ENV } from "./test/docs/system-tools.ts";

// Where tests that skip for a missing system tool record it; the missing-tools reporter prints the list.
process.env[MISSING_TOOLS_ENV] ??= join(tmpdir(), `physics-missing-tools-${process.pid}.ndjson`);

/** The fast inner loop: engine, room simulation, games core, network schema and scenarios, without the slow files. */
const UNIT = ["test/engine/**/*.test.ts", "test/sim/**/*.test.ts", "test/game/**/*.test.ts", "test/games/**/*.test.ts", "test/net/**/*.test.ts", "test/scenarios/**/*.test.ts"];
const SLOW = "test/**/*.slow.test.ts";
/**
 * Allocation profiling counts what the engine allocates after V8 has optimised it; V8 optimises on a
 * background thread, and with the machine's cores busy it may not have yet (unoptimised code boxes its
 * doubles). So it runs with the attack tests, alone.
 */
const ALONE = ["test/engine/allocation.slow.test.ts"];
/**
 * Several server processes on a Redis of their own, killed, paused, cut off: their bars (a dead process's
 * rooms resumed within 5 s, players back within 10 s, Redis healed within 5 s, placement of a 200-room
 * burst) are about those processes' schedules. Beside the other files, a saturated machine made Colyseus'
 * 2 s remote-creation timeout fire (and create rooms twice) and late detections, so they run one at a time.
 */
const CLUSTER = [
  "test/server/cluster-faults.test.ts",
  "test/server/redis-outage.test.ts",
  "test/server/failover.test.ts",
  "test/server/multiprocess.test.ts",
  "test/client/failover.test.ts",
];

/**
 * The `main` project's longest files (browser tests drawing thousands of bodies in software WebGL, minutes
 * of server ticks), longest first. Two at a time and started in file-size order, a long file that started
 * last ran on alone for minutes after the rest were done; started first, the short files fill in beside them.
 */
const MAIN_LONGEST_FIRST = [
  "test/client/scenes.test.ts",
  "test/client/browser-ui.test.ts",
  "test/client/games.test.ts",
  "test/client/replay-viewer.test.ts",
  "test/server/room.test.ts",
  "test/client/browser.test.ts",
  "test/engine/determinism.slow.test.ts",
  "test/client/shapes.test.ts",
  "test/engine/sim-snapshot.slow.test.ts",
  "test/docs/start.test.ts",
  "test/server/limits.test.ts",
  "test/server/replay.test.ts",
];

/** Vitest's order (failed first, then longest by the last run's times, else largest), with MAIN_LONGEST_FIRST ahead in `main`. */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const i = MAIN_LONGEST_FIRST.findIndex((f) => spec.moduleId.endsWith(f));
      return i === -1 ? MAIN_LONGEST_FIRST.length : i;
    };
    // Reordered among the places `main`'s files had (Array.prototype.sort is stable: the rest keep Vitest's order).
    const main = sorted.filter((spec) => spec.project.name === "main").sort((a, b) => rank(a) - rank(b));
    let next = 0;
    return sorted.map((spec) => (spec.project.name === "main" ? main[next++] : spec));
  }
}

/**
 * Four projects, run one after the other by `npm test`:
 * - `unit` (`npm run test:unit`): the engine, simulation, schema and scenario tests that need no socket,
 *   process or browser, in parallel; the inner loop.
 * - `main`: the server, client, load-test, deployment and documentation tests (real sockets, processes, Redis, nginx,
 *   Chromium) and the slow engine files (`*.slow.test.ts`: allocation profiling, cross-process and
 *   cross-browser determinism, thousand-body sleep runs), in parallel.
 * - `cluster`: several processes on one Redis (CLUSTER), one file at a time.
 * - `hostile`: attacks on a real server process whose numbers are about the process's own schedule, so
 *   they run alone, one file at a time, with nothing else on the machine's cores; allocation profiling
 *   (ALONE) too.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    reporters: ["default", "./test/docs/missing-tools-reporter.ts"],
    hookTimeout: 60_000,
    sequence: { sequencer: LongestFirst },
    projects: [
      // Pure CPU work in independent files: one worker per core (the default leaves one core idle).
      { extends: true, test: { name: "unit", include: UNIT, exclude: [SLOW], maxWorkers: availableParallelism() } },
      {
        extends: true,
        test: {
          name: "main",
          include: ["test/server/**/*.test.ts", "test/client/**/*.test.ts", "test/loadtest/**/*.test.ts", "test/deploy/**/*.test.ts", "test/docs/**/*.test.ts", SLOW],
          exclude: [...ALONE, ...CLUSTER],
          // Two files at a time even on two cores: most of these wait on sockets, processes and a browser,
          // and one at a time (the default leaves a core idle) took the project past 12 minutes.
          maxWorkers: Math.max(2, availableParallelism()),
        },
      },
      { extends: true, test: { name: "cluster", include: CLUSTER, fileParallelism: false } },
      { extends: true, test: { name: "hostile", include: ["test/hostile/**/*.test.ts", ...ALONE], fileParallelism: false } },
    ],
  },
});
