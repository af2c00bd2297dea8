import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { writeReport } from "./report.ts";
import { type LoadTestOptions, runLoadTest } from "./run.ts";

/**
 * npm run loadtest -- --rooms R --clients C --scenario NAME --seconds T [--url URL] [--find-capacity] [--publish]
 *
 * Progress goes to stderr; the report is written under loadtest/reports/runs/ (JSON, Markdown, SVG; not
 * tracked by git) and its paths and verdict printed to stdout. Only `--publish` replaces the tracked
 * loadtest/reports/latest.* (and, for a capacity run, capacity-latest.*, which the README quotes), so a
 * trial run changes nothing in the repository. Exit code: 0 when the run (or, with --find-capacity, the
 * ramp and the recovery) went as expected, 1 when a plain run did not hold or the server crashed, 2 on
 * bad arguments.
 */

/** The tracked reports (`--publish`) and the default directory of every run's own report. */
const REPORTS_DIR = join(import.meta.dirname, "reports");
const RUNS_DIR = join(REPORTS_DIR, "runs");

const HELP = `usage: npm run loadtest -- [options]
  --rooms R            rooms for a plain run (default 2)
  --clients C          bots per room (default 8)
  --scenario NAME      built-in scenario (default arena)
  --seconds T          measured seconds per stage (default 20)
  --warmup S           seconds between the bots joining and measuring (default 5)
  --input-hz HZ        move messages per bot per second (default 20; 60 = every frame)
  --patch-rate MS      room patch interval (default: the server's, 50 ms)
  --find-capacity      ramp rooms (--steps) until a stage does not hold, then ramp back down
  --steps LIST         room counts of the ramp (default 2,4,8,12,16,20,24,28,32,40,48,56,64)
  --overload-steps N   stages to run past the first failing one (default 1)
  --url URL            target a running server (needs --token or ADMIN_TOKEN) instead of starting one
  --token TOKEN        admin token for --url
  --nice N             run the spawned server and the bots at this priority (e.g. --nice=-10 on a shared machine; needs root)
  --redis URL          start the server as one process of a cluster on this Redis (loopback only): Redis presence and
                       driver, and its rooms' failover checkpoints, whose CPU the report shows next to the ticks
  --retries N          measure a failing stage again when other processes used > 25% of a core (default 2)
  --profile            write a CPU profile of the spawned server (node --cpu-prof) next to the report
  --out DIR            report directory (default loadtest/reports/runs, not tracked by git)
  --publish            also copy the report to the tracked loadtest/reports/latest.* (capacity runs:
                       and capacity-latest.*, the figures the README quotes)
  --seed N             bot behaviour seed (default 1)`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${HELP}\n`);
  process.exit(2);
}

function int(v: string | undefined, name: string, fallback: number, min = 1): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer ≥ ${min}, got "${v}"`);
  return n;
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        rooms: { type: "string" },
        clients: { type: "string" },
        scenario: { type: "string" },
        seconds: { type: "string" },
        warmup: { type: "string" },
        "input-hz": { type: "string" },
        "patch-rate": { type: "string" },
        "find-capacity": { type: "boolean" },
        steps: { type: "string" },
        "overload-steps": { type: "string" },
        url: { type: "string" },
        token: { type: "string" },
        profile: { type: "boolean" },
        nice: { type: "string" },
        redis: { type: "string" },
        retries: { type: "string" },
        out: { type: "string" },
        publish: { type: "boolean" },
        seed: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    });
  } catch (err) {
    fail((err as Error).message);
  }
})();

if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}

const outDir = values.out === undefined ? RUNS_DIR : resolve(values.out);
const steps = values.steps
  ? values.steps.split(",").map((s) => int(s.trim(), "steps", 0))
  : [2, 4, 8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 64];
if (values.url && !/^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?\/?$/.test(values.url)) {
  // Load is only ever sent to this machine (see the project's load-testing rules).
  fail(`--url must be a loopback address (127.x.x.x, localhost, [::1]), got "${values.url}"`);
}
const token = values.token ?? process.env.ADMIN_TOKEN;
if (values.url && !token) fail("--url needs the server's admin token: --token or ADMIN_TOKEN");

const options: LoadTestOptions = {
  url: values.url?.replace(/\/$/, ""),
  adminToken: token,
  rooms: int(values.rooms, "rooms", 2),
  clients: int(values.clients, "clients", 8),
  scenario: values.scenario ?? "arena",
  seconds: int(values.seconds, "seconds", 20),
  warmupSeconds: int(values.warmup, "warmup", 5, 0),
  inputHz: int(values["input-hz"], "input-hz", 20),
  patchRateMs: values["patch-rate"] ? int(values["patch-rate"], "patch-rate", 50, 16) : undefined,
  findCapacity: values["find-capacity"] === true,
  steps,
  overloadSteps: int(values["overload-steps"], "overload-steps", 1, 0),
  profileDir: values.profile ? resolve(outDir, "profiles") : undefined,
  seed: int(values.seed, "seed", 1, 0),
  nice: values.nice === undefined ? undefined : int(values.nice, "nice", 0, -20),
  retries: int(values.retries, "retries", 2, 0),
  redisUrl: values.redis,
  progress: (line) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`),
};
if (options.profileDir && options.url) fail("--profile needs a spawned server (no --url)");
if (options.redisUrl && options.url) fail("--redis needs a spawned server (no --url)");
if (options.redisUrl && !/^rediss?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/\d+)?$/.test(options.redisUrl)) {
  fail(`--redis must be a loopback Redis URL (redis://127.0.0.1:6379), got "${options.redisUrl}"`);
}

// Ctrl-C / SIGTERM: exit through process.exit so the server child and the noise probe are killed.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));

const report = await runLoadTest(options);
const files = writeReport(report, outDir, values.publish ? REPORTS_DIR : undefined);
process.stdout.write(`${report.verdict}\nreport: ${files.md}\n        ${files.json}\n        ${files.svg}\n`);
if (files.published.length > 0) process.stdout.write(`published: ${files.published.map((f) => relative(process.cwd(), f)).join(", ")}\n`);
const ok = report.server.alive && (report.kind === "capacity" ? report.degradation === null || report.degradation.recovered !== false : report.stages.every((s) => s.held));
process.exit(ok ? 0 : 1);
