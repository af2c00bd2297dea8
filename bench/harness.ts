import { spawnSync } from "node:child_process";
import type { Scenario } from "../shared/scenarios/format.ts";
import type { BenchEngine } from "./adapters/types.ts";

/**
 * Engine-independent benchmark harness: step timing, statistics, scene-outcome probes, a Markdown
 * table printer and a runner that executes every (case, engine, run) in a fresh child process.
 * Nothing in here knows about a particular engine; engines come in through `BenchEngine`.
 */

export { type GcReport, measureGc } from "./gc.ts";

// ---------------------------------------------------------------------------------------------------
// Statistics

export function median(xs: ArrayLike<number>): number {
  const n = xs.length;
  if (n === 0) return Number.NaN;
  const s = Array.from(xs).sort((a, b) => a - b);
  const m = n >> 1;
  return n % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function mean(xs: ArrayLike<number>): number {
  const n = xs.length;
  if (n === 0) return Number.NaN;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += xs[i];
  return sum / n;
}

/**
 * Least-squares slope of log(t) against log(n): the exponent k in t ~ c * n^k (1 = linear,
 * 2 = quadratic). Needs at least two distinct positive n.
 */
export function fitExponent(ns: ArrayLike<number>, times: ArrayLike<number>): number {
  if (ns.length !== times.length) throw new Error("fitExponent: ns and times differ in length");
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < ns.length; i++) {
    if (ns[i] > 0 && times[i] > 0) {
      xs.push(Math.log(ns[i]));
      ys.push(Math.log(times[i]));
    }
  }
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < xs.length; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) * (xs[i] - mx);
  }
  return sxx > 0 ? sxy / sxx : Number.NaN;
}

// ---------------------------------------------------------------------------------------------------
// Step timing

export interface WindowStats {
  /** Step indices [from, to) of the window, 0-based (step i is the (i+1)-th call of step()). */
  from: number;
  to: number;
  medianMs: number;
  meanMs: number;
}

export interface StepTimes extends WindowStats {
  /** ms for every step, including the skipped ones. */
  times: Float64Array;
  /** Stats over any other window of the same run. */
  window(from: number, to: number): WindowStats;
}

export function windowStats(times: ArrayLike<number>, from: number, to: number): WindowStats {
  const f = Math.max(0, Math.min(from, times.length));
  const t = Math.max(f, Math.min(to, times.length));
  const slice = Array.prototype.slice.call(times, f, t) as number[];
  return { from: f, to: t, medianMs: median(slice), meanMs: mean(slice) };
}

/**
 * Runs `steps` steps, timing only `engine.step()` (performance.now() around the call). The stats cover
 * steps after the first `skip`; with `last`, only the last `last` steps (and never the skipped ones).
 * `onStep(k)` runs after step k (1-based count of steps done) outside the timed region, for probes
 * such as the all-asleep check; returning `true` from it stops the loop early.
 */
export function timeSteps(
  engine: BenchEngine,
  steps: number,
  skip = 0,
  opts: { last?: number; onStep?: (k: number) => boolean | undefined } = {},
): StepTimes {
  const times = new Float64Array(steps);
  const onStep = opts.onStep;
  let done = steps;
  for (let i = 0; i < steps; i++) {
    const t0 = performance.now();
    engine.step();
    times[i] = performance.now() - t0;
    if (onStep && onStep(i + 1) === true) {
      done = i + 1;
      break;
    }
  }
  const all = done < steps ? times.subarray(0, done) : times;
  const from = opts.last !== undefined ? Math.max(skip, done - opts.last) : skip;
  const stats = windowStats(all, from, done);
  return { ...stats, times: all, window: (f: number, t: number) => windowStats(all, f, t) };
}

// ---------------------------------------------------------------------------------------------------
// Scene-outcome probes

export type Vec3 = [number, number, number];

/** Horizontal (x-z) distance between two positions: sideways drift of a body. */
export function drift(start: Vec3, end: Vec3): number {
  const dx = end[0] - start[0];
  const dz = end[2] - start[2];
  return Math.sqrt(dx * dx + dz * dz);
}

/** start y - end y: how far a body sank (negative: it rose). */
export function sink(start: Vec3, end: Vec3): number {
  return start[1] - end[1];
}

/** The dynamic body that starts highest (the top box of a stack/pyramid); the last one on ties. */
export function topBodyId(scenario: Scenario): string {
  let best: string | null = null;
  let bestY = Number.NEGATIVE_INFINITY;
  for (const b of scenario.bodies) {
    if (b.type === "dynamic" && b.position[1] >= bestY) {
      bestY = b.position[1];
      best = b.id;
    }
  }
  if (best === null) throw new Error(`scenario ${scenario.name}: no dynamic body`);
  return best;
}

export function startPosition(scenario: Scenario, id: string): Vec3 {
  const b = scenario.bodies.find((x) => x.id === id);
  if (!b) throw new Error(`scenario ${scenario.name}: no body "${id}"`);
  return [b.position[0], b.position[1], b.position[2]];
}

/** Drift and sink of body `id` now, relative to its start in the scenario. */
export function driftAndSink(engine: BenchEngine, scenario: Scenario, id: string): { drift: number; sink: number } {
  const s = startPosition(scenario, id);
  const p = engine.position(id);
  return { drift: drift(s, p), sink: sink(s, p) };
}

/** True when every dynamic body is asleep (and there is at least one). */
export function allAsleep(engine: BenchEngine): boolean {
  const n = engine.dynamicCount();
  return n > 0 && engine.sleepingCount() === n;
}

/**
 * Tracks the first step k after which all dynamic bodies are asleep. Use `onStep` as the timeSteps
 * hook (set `stopWhenAsleep` to end the run there); `step` is null until it happens.
 */
export function allAsleepTracker(engine: BenchEngine, stopWhenAsleep = false) {
  const t = {
    step: null as number | null,
    onStep(k: number): boolean {
      if (t.step === null && allAsleep(engine)) t.step = k;
      return stopWhenAsleep && t.step !== null;
    },
  };
  return t;
}

/**
 * The tunnelling probe: finds the fastest dynamic sphere (the bullet) and the box that lies first on
 * its path (the wall), from the scenario alone, so it works for any "fast body vs thin wall" scene.
 * Boxes are treated as axis-aligned (walls in scenes are).
 */
export function findBulletAndWall(scenario: Scenario): { bullet: string; wall: string; dir: Vec3 } {
  let bullet: (typeof scenario.bodies)[number] | null = null;
  let bestSpeed = 0;
  for (const b of scenario.bodies) {
    if (b.type !== "dynamic" || b.shape.type !== "sphere" || !b.linearVelocity) continue;
    const v = b.linearVelocity;
    const speed = Math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (speed > bestSpeed) {
      bestSpeed = speed;
      bullet = b;
    }
  }
  if (!bullet || !bullet.linearVelocity) throw new Error(`scenario ${scenario.name}: no moving sphere`);
  const v = bullet.linearVelocity;
  const dir: Vec3 = [v[0] / bestSpeed, v[1] / bestSpeed, v[2] / bestSpeed];
  const p = bullet.position;
  let wall: string | null = null;
  let bestT = Number.POSITIVE_INFINITY;
  for (const b of scenario.bodies) {
    if (b === bullet || b.shape.type !== "box") continue;
    // Ray (p, dir) against the box's AABB (slab test).
    const he = b.shape.halfExtents;
    let tmin = 0;
    let tmax = Number.POSITIVE_INFINITY;
    for (let a = 0; a < 3; a++) {
      const lo = b.position[a] - he[a];
      const hi = b.position[a] + he[a];
      if (Math.abs(dir[a]) < 1e-12) {
        if (p[a] < lo || p[a] > hi) tmax = -1;
      } else {
        const t1 = (lo - p[a]) / dir[a];
        const t2 = (hi - p[a]) / dir[a];
        tmin = Math.max(tmin, Math.min(t1, t2));
        tmax = Math.min(tmax, Math.max(t1, t2));
      }
    }
    if (tmax >= tmin && tmin > 0 && tmin < bestT) {
      bestT = tmin;
      wall = b.id;
    }
  }
  if (!wall) throw new Error(`scenario ${scenario.name}: nothing in the bullet's path`);
  return { bullet: bullet.id, wall, dir };
}

/**
 * Where the bullet is relative to the wall, along the bullet's initial direction: "passed" when its
 * centre is beyond the wall's far face, "stopped" when it is before the near face, "inside" otherwise.
 * Uses the wall's current position (it may be dynamic).
 */
export function passThrough(
  engine: BenchEngine,
  scenario: Scenario,
  ids = findBulletAndWall(scenario),
): { outcome: "passed" | "stopped" | "inside"; bulletAlong: number; nearFace: number; farFace: number } {
  const wallDef = scenario.bodies.find((b) => b.id === ids.wall)!;
  const he = wallDef.shape.type === "box" ? wallDef.shape.halfExtents : [0, 0, 0];
  const d = ids.dir;
  const origin = startPosition(scenario, ids.bullet);
  const along = (q: Vec3) => (q[0] - origin[0]) * d[0] + (q[1] - origin[1]) * d[1] + (q[2] - origin[2]) * d[2];
  const half = Math.abs(d[0]) * he[0] + Math.abs(d[1]) * he[1] + Math.abs(d[2]) * he[2];
  const wc = along(engine.position(ids.wall));
  const s = along(engine.position(ids.bullet));
  const nearFace = wc - half;
  const farFace = wc + half;
  const outcome = s > farFace ? "passed" : s < nearFace ? "stopped" : "inside";
  return { outcome, bulletAlong: s, nearFace, farFace };
}

/**
 * 32-bit FNV-1a hash of every body's position and rotation (bit patterns of the doubles), in scenario
 * order: equal hashes across runs mean bit-identical final states.
 */
export function stateHash(engine: BenchEngine, scenario: Scenario): string {
  const buf = new Float64Array(7);
  const bytes = new Uint8Array(buf.buffer);
  let h = 0x811c9dc5;
  for (const b of scenario.bodies) {
    const p = engine.position(b.id);
    const q = engine.rotation(b.id);
    buf[0] = p[0];
    buf[1] = p[1];
    buf[2] = p[2];
    buf[3] = q[0];
    buf[4] = q[1];
    buf[5] = q[2];
    buf[6] = q[3];
    for (let i = 0; i < bytes.length; i++) {
      h ^= bytes[i];
      h = Math.imul(h, 0x01000193);
    }
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

// ---------------------------------------------------------------------------------------------------
// Markdown table

export type Align = "left" | "right";

/** A fixed-width Markdown table (every column padded to its widest cell). */
export function formatTable(headers: string[], rows: string[][], align: Align[] = []): string {
  const widths = headers.map((h, c) => Math.max(3, h.length, ...rows.map((r) => (r[c] ?? "").length)));
  const pad = (s: string, c: number) => ((align[c] ?? "left") === "right" ? s.padStart(widths[c]) : s.padEnd(widths[c]));
  const line = (cells: string[]) => `| ${cells.map((s, c) => pad(s ?? "", c)).join(" | ")} |`;
  const sep = `|${widths.map((w, c) => ((align[c] ?? "left") === "right" ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(headers), sep, ...rows.map(line)].join("\n");
}

export function printTable(headers: string[], rows: string[][], align: Align[] = []): void {
  process.stdout.write(`${formatTable(headers, rows, align)}\n`);
}

/** Number formatting for tables: `digits` significant digits, no exponent for table-sized values. */
export function fmt(x: number | null | undefined, digits = 3): string {
  if (x === null || x === undefined || Number.isNaN(x)) return "-";
  if (x === 0) return "0";
  const mag = Math.floor(Math.log10(Math.abs(x)));
  const decimals = Math.max(0, digits - 1 - mag);
  return x.toFixed(Math.min(decimals, 6));
}

// ---------------------------------------------------------------------------------------------------
// Child-process runner

export type MetricValue = number | string | boolean | null;
export type Metrics = Record<string, MetricValue>;

export interface RunResult {
  caseName: string;
  engine: string;
  run: number;
  ok: boolean;
  metrics: Metrics;
  error?: string;
  /** Wall time of the whole child process, ms. */
  wallMs: number;
}

const RESULT_TAG = "@@BENCH_RESULT@@ ";

export interface BenchArgs {
  runs: number;
  quick: boolean;
  /** --scenes a,b (null: all). */
  scenes: string[] | null;
  /** --engines x,y (null: default set). */
  engines: string[] | null;
  /** Set in a child process: which case and engine to run. */
  child: { caseName: string; engine: string } | null;
}

/**
 * Parses the common flags: --runs N (default 3, 1 with --quick unless given), --quick,
 * --scenes a,b, --engines x,y, and the internal --child <case> <engine>.
 */
export function parseBenchArgs(argv: string[] = process.argv.slice(2)): BenchArgs {
  const list = (s: string | undefined) =>
    (s ?? "")
      .split(",")
      .map((x) => x.trim())
      .filter(Boolean);
  let runs: number | null = null;
  let quick = false;
  let scenes: string[] | null = null;
  let engines: string[] | null = null;
  let child: BenchArgs["child"] = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const [flag, inline] = a.includes("=") ? [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)] : [a, undefined];
    const value = () => inline ?? argv[++i];
    if (flag === "--runs") {
      runs = Number(value());
      if (!Number.isInteger(runs) || runs < 1) throw new Error("--runs needs a positive integer");
    } else if (flag === "--quick") quick = true;
    else if (flag === "--scenes") scenes = list(value());
    else if (flag === "--engines") engines = list(value());
    else if (flag === "--child") child = { caseName: argv[++i], engine: argv[++i] };
    else throw new Error(`unknown argument "${a}" (flags: --runs N, --quick, --scenes a,b, --engines x,y)`);
  }
  return { runs: runs ?? (quick ? 1 : 3), quick, scenes, engines, child };
}

/**
 * Child side: runs one (case, engine) through `fn` and prints its metrics as one tagged JSON line on
 * stdout (other output is allowed; the parent only reads the tagged line).
 */
export async function childMain(caseName: string, engine: string, fn: () => Promise<Metrics> | Metrics): Promise<void> {
  const t0 = performance.now();
  try {
    const metrics = await fn();
    const r: RunResult = { caseName, engine, run: 0, ok: true, metrics, wallMs: performance.now() - t0 };
    process.stdout.write(`${RESULT_TAG}${JSON.stringify(r)}\n`);
  } catch (e) {
    const err = e instanceof Error ? (e.stack ?? e.message) : String(e);
    const r: RunResult = { caseName, engine, run: 0, ok: false, metrics: {}, error: err, wallMs: performance.now() - t0 };
    process.stdout.write(`${RESULT_TAG}${JSON.stringify(r)}\n`);
    process.exitCode = 1;
  }
}

/** Parent side: one fresh process (same Node binary) for one (case, engine, run). */
export function runInChild(
  script: string,
  caseName: string,
  engine: string,
  run: number,
  extraArgs: string[] = [],
  timeoutMs = 20 * 60 * 1000,
): RunResult {
  const t0 = performance.now();
  const res = spawnSync(process.execPath, [script, "--child", caseName, engine, ...extraArgs], {
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    timeout: timeoutMs,
  });
  const wallMs = performance.now() - t0;
  const line = (res.stdout ?? "").split("\n").find((l) => l.startsWith(RESULT_TAG));
  if (line) {
    const r = JSON.parse(line.slice(RESULT_TAG.length)) as RunResult;
    return { ...r, run, wallMs };
  }
  const why = res.error ? String(res.error) : `exit ${res.status}${res.signal ? ` signal ${res.signal}` : ""}`;
  return { caseName, engine, run, ok: false, metrics: {}, error: `${why}\n${(res.stderr ?? "").slice(-2000)}`, wallMs };
}

/**
 * Runs every case x engine `runs` times, each in a fresh child process, one at a time (never in
 * parallel: the timings would disturb each other). Order: run-major, engines alternating within a
 * case, so slow drift of the machine spreads over all engines. Progress goes to stderr.
 */
export function runMatrix(opts: {
  script: string;
  cases: string[];
  engines: string[];
  runs: number;
  childArgs?: string[];
  /** Short per-run summary for the progress line. */
  summary?: (r: RunResult) => string;
  /** Pairs not to run at all (they produce no result). */
  skip?: (caseName: string, engine: string) => boolean;
}): RunResult[] {
  const out: RunResult[] = [];
  const skip = opts.skip ?? (() => false);
  let pairs = 0;
  for (const c of opts.cases) for (const e of opts.engines) if (!skip(c, e)) pairs++;
  const total = pairs * opts.runs;
  let n = 0;
  for (let run = 1; run <= opts.runs; run++) {
    for (const c of opts.cases) {
      for (const e of opts.engines) {
        if (skip(c, e)) continue;
        n++;
        const r = runInChild(opts.script, c, e, run, opts.childArgs ?? []);
        out.push(r);
        const info = r.ok ? (opts.summary?.(r) ?? "") : `FAILED: ${r.error?.split("\n")[0]}`;
        process.stderr.write(`[${n}/${total}] run ${run} ${c} / ${e}: ${info} (${(r.wallMs / 1000).toFixed(1)} s)\n`);
        if (!r.ok && r.error) process.stderr.write(`${r.error}\n`);
      }
    }
  }
  return out;
}

export interface Aggregate {
  runs: number;
  failed: number;
  errors: string[];
  /** Numbers: median over runs. Strings/booleans: the value if all runs agree, else "a/b/..." of the distinct values. */
  metrics: Metrics;
  /** Per numeric metric: [min, max] over runs. */
  range: Record<string, [number, number]>;
  /** Per metric: did every run give the same value? */
  same: Record<string, boolean>;
}

/** Groups results by case then engine and reduces the runs (median for numbers). */
export function aggregate(results: RunResult[]): Map<string, Map<string, Aggregate>> {
  const groups = new Map<string, Map<string, RunResult[]>>();
  for (const r of results) {
    let byEngine = groups.get(r.caseName);
    if (!byEngine) groups.set(r.caseName, (byEngine = new Map()));
    const list = byEngine.get(r.engine) ?? [];
    list.push(r);
    byEngine.set(r.engine, list);
  }
  const out = new Map<string, Map<string, Aggregate>>();
  for (const [c, byEngine] of groups) {
    const m = new Map<string, Aggregate>();
    for (const [e, rs] of byEngine) {
      const ok = rs.filter((r) => r.ok);
      const keys = new Set(ok.flatMap((r) => Object.keys(r.metrics)));
      const metrics: Metrics = {};
      const range: Record<string, [number, number]> = {};
      const same: Record<string, boolean> = {};
      for (const k of keys) {
        const vals = ok.map((r) => r.metrics[k]).filter((v) => v !== undefined);
        const distinct = [...new Set(vals.map((v) => JSON.stringify(v)))];
        same[k] = distinct.length <= 1;
        if (vals.length > 0 && vals.every((v) => typeof v === "number")) {
          const nums = vals as number[];
          metrics[k] = median(nums);
          range[k] = [Math.min(...nums), Math.max(...nums)];
        } else {
          metrics[k] = distinct.length === 1 ? vals[0] : distinct.map((d) => String(JSON.parse(d))).join("/");
        }
      }
      m.set(e, { runs: ok.length, failed: rs.length - ok.length, errors: rs.filter((r) => !r.ok).map((r) => r.error ?? ""), metrics, range, same });
    }
    out.set(c, m);
  }
  return out;
}
