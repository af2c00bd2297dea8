/**
 * Reference benchmark: the same scenes in every registered engine (cannon-es, Rapier in two builds:
 * `rapier` = @dimforge/rapier3d-compat, WASM, and `rapier-simd` = @dimforge/rapier3d-simd-compat, WASM
 * SIMD, one adapter with the same settings for both; and ours), each (scene, engine, run) in a fresh
 * Node process, medians of the runs in one Markdown table, with ours' ms/step divided by each
 * reference's (ours/rapier, ours/rapier-simd, ours/cannon).
 *
 * Run (no npm needed; Node 24 from node_modules):
 *   ./node_modules/.bin/node bench/reference-bench.ts [--quick] [--runs N] [--scenes a,b] [--engines x,y]
 *
 *   --runs N      runs per (scene, engine), each a fresh process; medians reported (default 3, 1 with --quick)
 *   --quick       fewer steps (smoke test; timings and outcomes are then NOT comparable to the anchors)
 *   --scenes a,b  only these scenes (registry names: stack10, pyramid20, pile1000, heap1000, rain2000,
 *                 shapes1000, chain, ragdolls, bridge, cart, failure-lab) or case names (e.g. pile1000-sleep,
 *                 chain-hang)
 *   --engines x,y only these engines (names in bench/adapters/index.ts; default
 *                 cannon-es,rapier,rapier-simd,ours)
 *
 * Full run: about 6-8 minutes on the 2-core machine, almost all of it cannon-es.
 * Timing: only `engine.step()` is timed (performance.now() around it); see each case's window.
 * A (scene, engine) pair whose shapes or joints the engine's adapter cannot build (cannon-es on shapes1000,
 * or on hinge limits) is not run: its cells read "n/a".
 */
import { fileURLToPath } from "node:url";
import type { Scenario } from "../shared/scenarios/format.ts";
import { createEngine, DEFAULT_ENGINES, ENGINES, REFERENCE_ENGINES, unsupportedJoints, unsupportedShapes } from "./adapters/index.ts";
import { chainStretchMeter, hangChainStraight } from "./chain-stretch.ts";
import {
  type Aggregate,
  aggregate,
  type BenchArgs,
  allAsleepTracker,
  childMain,
  driftAndSink,
  findBulletAndWall,
  fmt,
  type Metrics,
  type MetricValue,
  parseBenchArgs,
  passThrough,
  printTable,
  type RunResult,
  runMatrix,
  stateHash,
  timeSteps,
  topBodyId,
} from "./harness.ts";
import { shapes1000 } from "../shared/scenarios/builtins/shapes1000.ts";
import { getBuiltinScenario } from "../shared/scenarios/index.ts";

const SCENE_SOURCE = "shared/scenarios (getBuiltinScenario)";

/** Scenes the bench builds from their own file when the built-in registry does not list them. */
const OWN_SCENES: Readonly<Record<string, () => Scenario>> = { shapes1000 };

function sceneByName(name: string): Scenario | undefined {
  return getBuiltinScenario(name) ?? (Object.hasOwn(OWN_SCENES, name) ? OWN_SCENES[name]() : undefined);
}

type Probe = "top" | "asleep" | "tunnel" | "sleepingAtEnd" | "stretch";

interface RefCase {
  /** Case id (child-process argument, --scenes filter). */
  name: string;
  /** Registry scene name. */
  scene: string;
  sleep: boolean;
  steps: number;
  quickSteps: number;
  /** Timed window [from, to) in 0-based step indices, or null: no timing row. */
  window: ((steps: number) => [number, number]) | null;
  transform?: (s: Scenario) => Scenario;
  probes: Probe[];
}

/** CCD flag set explicitly, so the rows do not depend on what the scene file says. */
function withCcd(ccd: boolean, dynamicWall: boolean) {
  return (s: Scenario): Scenario => {
    const out: Scenario = structuredClone(s);
    out.world = { ...(out.world ?? {}), ccd };
    if (dynamicWall) {
      const { wall } = findBulletAndWall(out);
      const w = out.bodies.find((b) => b.id === wall)!;
      w.type = "dynamic";
    }
    return out;
  };
}

const after30 = (steps: number): [number, number] => [Math.min(30, steps), steps];
const lastHalf = (steps: number): [number, number] => [steps >> 1, steps];
const lastQuarter = (steps: number): [number, number] => [steps - (steps >> 2), steps];

const CASES: RefCase[] = [
  { name: "pyramid20", scene: "pyramid20", sleep: false, steps: 600, quickSteps: 150, window: after30, probes: ["top"] },
  { name: "pile1000", scene: "pile1000", sleep: false, steps: 600, quickSteps: 120, window: lastHalf, probes: [] },
  { name: "heap1000", scene: "heap1000", sleep: false, steps: 600, quickSteps: 120, window: lastHalf, probes: [] },
  { name: "rain2000", scene: "rain2000", sleep: false, steps: 600, quickSteps: 120, window: lastHalf, probes: [] },
  { name: "shapes1000", scene: "shapes1000", sleep: false, steps: 600, quickSteps: 120, window: lastHalf, probes: [] },
  // Joints: Rapier's impulse joints at its defaults (bench/adapters/rapier.ts, createJoint).
  { name: "chain", scene: "chain", sleep: false, steps: 600, quickSteps: 120, window: after30, probes: ["stretch"] },
  { name: "ragdolls", scene: "ragdolls", sleep: false, steps: 600, quickSteps: 120, window: after30, probes: [] },
  { name: "bridge", scene: "bridge", sleep: false, steps: 600, quickSteps: 120, window: after30, probes: [] },
  { name: "cart", scene: "cart", sleep: false, steps: 600, quickSteps: 120, window: after30, probes: [] },
  {
    // The chain of `chain` hanging straight down with its ball, nothing else: its stretch at rest after 10 s.
    name: "chain-hang",
    scene: "chain",
    sleep: false,
    steps: 600,
    quickSteps: 600,
    window: null,
    transform: hangChainStraight,
    probes: ["stretch"],
  },
  { name: "stack10", scene: "stack10", sleep: false, steps: 1200, quickSteps: 1200, window: after30, probes: ["top"] },
  { name: "stack10-sleep", scene: "stack10", sleep: true, steps: 1200, quickSteps: 600, window: null, probes: ["asleep"] },
  {
    name: "pile1000-sleep",
    scene: "pile1000",
    sleep: true,
    steps: 1200,
    quickSteps: 240,
    window: lastQuarter,
    probes: ["asleep", "sleepingAtEnd"],
  },
  {
    name: "failure-lab",
    scene: "failure-lab",
    sleep: false,
    steps: 60,
    quickSteps: 60,
    window: null,
    transform: withCcd(false, false),
    probes: ["tunnel"],
  },
  {
    name: "failure-lab-ccd",
    scene: "failure-lab",
    sleep: false,
    steps: 60,
    quickSteps: 60,
    window: null,
    transform: withCcd(true, false),
    probes: ["tunnel"],
  },
  {
    name: "failure-lab-dynwall",
    scene: "failure-lab",
    sleep: false,
    steps: 60,
    quickSteps: 60,
    window: null,
    transform: withCcd(false, true),
    probes: ["tunnel"],
  },
  {
    name: "failure-lab-dynwall-ccd",
    scene: "failure-lab",
    sleep: false,
    steps: 60,
    quickSteps: 60,
    window: null,
    transform: withCcd(true, true),
    probes: ["tunnel"],
  },
];

// ---------------------------------------------------------------------------------------------------
// Child: one case in one engine

async function runCase(c: RefCase, engineName: string, quick: boolean): Promise<Metrics> {
  const base = sceneByName(c.scene);
  if (!base) throw new Error(`scene "${c.scene}" not in the registry`);
  const scenario = c.transform ? c.transform(base) : base;
  const engine = createEngine(engineName);
  await engine.load(scenario, { sleep: c.sleep });
  const steps = quick ? c.quickSteps : c.steps;
  const m: Metrics = { steps, bodies: scenario.bodies.length };

  const tracker = allAsleepTracker(engine);
  // Chain stretch: sampled every 10th step (outside the timed call) for its maximum, and after the last.
  const stretch = c.probes.includes("stretch") ? chainStretchMeter(scenario) : null;
  let maxStretch = 0;
  const onStep =
    stretch !== null
      ? (k: number) => {
          if (k % 10 === 0) maxStretch = Math.max(maxStretch, stretch(engine));
          return undefined;
        }
      : c.probes.includes("asleep")
        ? tracker.onStep
        : undefined;
  const t = timeSteps(engine, steps, 0, { onStep });
  if (c.window) {
    const [from, to] = c.window(steps);
    const w = t.window(from, to);
    m.msFrom = w.from;
    m.msTo = w.to;
    m.ms = w.medianMs;
    m.msMean = w.meanMs;
  }
  if (c.probes.includes("top")) {
    const top = topBodyId(scenario);
    const ds = driftAndSink(engine, scenario, top);
    m.topDrift = ds.drift;
    m.topSink = ds.sink;
  }
  if (stretch !== null) {
    m.stretch = stretch(engine);
    m.maxStretch = Math.max(maxStretch, m.stretch);
  }
  if (c.probes.includes("asleep")) m.allAsleepStep = tracker.step;
  if (c.probes.includes("sleepingAtEnd")) m.sleepingAtEnd = `${engine.sleepingCount()}/${engine.dynamicCount()}`;
  if (c.probes.includes("tunnel")) {
    const p = passThrough(engine, scenario);
    m.tunnel = p.outcome;
    m.bulletAlong = p.bulletAlong;
    m.nearFace = p.nearFace;
  }
  m.hash = stateHash(engine, scenario);
  engine.dispose();
  return m;
}

// ---------------------------------------------------------------------------------------------------
// Parent: table

type Kind = "ms" | "m" | "pct" | "step" | "text" | "tunnel";

interface Row {
  caseName: string;
  scene: string;
  metric: (steps: number, agg: Aggregate | undefined) => string;
  key: string;
  kind: Kind;
  /** Reference numbers measured earlier for cannon-es / rapier3d-compat on this scene (none for the SIMD build). */
  anchor: string;
}

const msLabel = (_s: number, a: Aggregate | undefined) =>
  a && typeof a.metrics.msFrom === "number" ? `ms/step, steps ${a.metrics.msFrom + 1}-${a.metrics.msTo}` : "ms/step";

const ROWS: Row[] = [
  { caseName: "pyramid20", scene: "pyramid20", key: "ms", kind: "ms", metric: msLabel, anchor: "7.66 / 1.42" },
  { caseName: "pyramid20", scene: "pyramid20", key: "topDrift", kind: "m", metric: (s) => `top-box drift @${s}, m`, anchor: "41.6 / 0.027" },
  { caseName: "pile1000", scene: "pile1000", key: "ms", kind: "ms", metric: msLabel, anchor: "38.4 / 2.65" },
  { caseName: "heap1000", scene: "heap1000", key: "ms", kind: "ms", metric: msLabel, anchor: "" },
  { caseName: "rain2000", scene: "rain2000", key: "ms", kind: "ms", metric: msLabel, anchor: "56.3 / 3.17" },
  { caseName: "shapes1000", scene: "shapes1000", key: "ms", kind: "ms", metric: msLabel, anchor: "" },
  { caseName: "chain", scene: "chain", key: "ms", kind: "ms", metric: msLabel, anchor: "" },
  { caseName: "chain", scene: "chain", key: "maxStretch", kind: "pct", metric: (s) => `max chain stretch @1..${s}, %`, anchor: "" },
  { caseName: "chain-hang", scene: "chain hanging", key: "stretch", kind: "pct", metric: (s) => `chain stretch at rest @${s}, %`, anchor: "" },
  { caseName: "ragdolls", scene: "ragdolls", key: "ms", kind: "ms", metric: msLabel, anchor: "" },
  { caseName: "bridge", scene: "bridge", key: "ms", kind: "ms", metric: msLabel, anchor: "" },
  { caseName: "cart", scene: "cart", key: "ms", kind: "ms", metric: msLabel, anchor: "" },
  { caseName: "stack10", scene: "stack10", key: "ms", kind: "ms", metric: msLabel, anchor: "" },
  { caseName: "stack10", scene: "stack10", key: "topDrift", kind: "m", metric: (s) => `top-box drift @${s}, m`, anchor: "15.9 / 0.0098" },
  { caseName: "stack10", scene: "stack10", key: "topSink", kind: "m", metric: (s) => `top-box sink @${s}, m`, anchor: "9.0 / 0.026" },
  { caseName: "stack10-sleep", scene: "stack10 +sleep", key: "allAsleepStep", kind: "step", metric: () => "all asleep at step", anchor: "211 / 35" },
  { caseName: "pile1000-sleep", scene: "pile1000 +sleep", key: "ms", kind: "ms", metric: msLabel, anchor: "37.9 / 0.17" },
  { caseName: "pile1000-sleep", scene: "pile1000 +sleep", key: "allAsleepStep", kind: "step", metric: () => "all asleep at step", anchor: "" },
  { caseName: "pile1000-sleep", scene: "pile1000 +sleep", key: "sleepingAtEnd", kind: "text", metric: (s) => `asleep @${s}`, anchor: "" },
  {
    caseName: "failure-lab",
    scene: "failure-lab",
    key: "tunnel",
    kind: "tunnel",
    metric: (s) => `static wall, CCD off, @${s}`,
    anchor: "passes / stopped",
  },
  { caseName: "failure-lab-ccd", scene: "failure-lab", key: "tunnel", kind: "tunnel", metric: (s) => `static wall, CCD on, @${s}`, anchor: "- / stopped" },
  {
    caseName: "failure-lab-dynwall",
    scene: "failure-lab",
    key: "tunnel",
    kind: "tunnel",
    metric: (s) => `dynamic wall, CCD off, @${s}`,
    anchor: "passes / passes",
  },
  {
    caseName: "failure-lab-dynwall-ccd",
    scene: "failure-lab",
    key: "tunnel",
    kind: "tunnel",
    metric: (s) => `dynamic wall, CCD on, @${s}`,
    anchor: "- / stopped",
  },
];

function cell(kind: Kind, a: Aggregate | undefined, key: string): string {
  if (!a) return "";
  if (a.runs === 0) return "FAILED";
  const v: MetricValue = a.metrics[key];
  const flag = a.same[key] === false && kind !== "ms" ? " (runs differ)" : "";
  if (kind === "ms") return typeof v === "number" ? fmt(v, 3) : "-";
  if (kind === "m") return (typeof v === "number" ? fmt(v, 2) : String(v)) + flag;
  if (kind === "pct") return (typeof v === "number" ? fmt(v, 3) : String(v)) + flag;
  if (kind === "step") return (v === null ? "never" : String(v)) + flag;
  if (kind === "tunnel") {
    const along = a.metrics.bulletAlong;
    const at = typeof along === "number" ? ` (x ${fmt(along, 3)})` : "";
    return `${String(v)}${at}${flag}`;
  }
  return String(v) + flag;
}

function ratio(kind: Kind, num: Aggregate | undefined, den: Aggregate | undefined, key: string): string {
  if (kind !== "ms" || !num || !den) return "";
  const a = num.metrics[key];
  const b = den.metrics[key];
  return typeof a === "number" && typeof b === "number" && b > 0 ? fmt(a / b, 3) : "";
}

/** One run's line on stderr while the matrix runs. */
function summarizeRun(r: RunResult): string {
  const m = r.metrics;
  const parts: string[] = [];
  if (typeof m.ms === "number") parts.push(`${fmt(m.ms, 3)} ms/step`);
  if (typeof m.topDrift === "number") parts.push(`drift ${fmt(m.topDrift, 2)} m`);
  if (typeof m.topSink === "number") parts.push(`sink ${fmt(m.topSink, 2)} m`);
  if (typeof m.stretch === "number") parts.push(`stretch ${fmt(m.stretch, 3)} % (max ${fmt(m.maxStretch as number, 3)} %)`);
  if ("allAsleepStep" in m) parts.push(`asleep@${m.allAsleepStep}`);
  if (m.tunnel) parts.push(String(m.tunnel));
  parts.push(`hash ${m.hash}`);
  return parts.join(", ");
}

/** Child process: runs one (case, engine) and reports back to the parent. */
function runChild(args: BenchArgs, child: { caseName: string; engine: string }): void {
  const { caseName, engine } = child;
  const c = CASES.find((x) => x.name === caseName);
  void childMain(caseName, engine, () => {
    if (!c) throw new Error(`unknown case "${caseName}"`);
    return runCase(c, engine, args.quick);
  });
}

/** `case|engine` keys of the pairs not run: the engine's adapter cannot build the scene's shapes. */
type Skips = Set<string>;
const pairKey = (caseName: string, engine: string) => `${caseName}|${engine}`;

/** The engines and cases the flags select, checked, and the pairs among them that cannot run. */
function selectMatrix(args: BenchArgs): { engines: string[]; cases: RefCase[]; skips: Skips } {
  const engines = args.engines ?? DEFAULT_ENGINES;
  for (const e of engines) if (!(e in ENGINES)) throw new Error(`unknown engine "${e}" (have: ${Object.keys(ENGINES).join(", ")})`);
  const cases = CASES.filter((c) => !args.scenes || args.scenes.includes(c.scene) || args.scenes.includes(c.name));
  if (cases.length === 0) throw new Error(`no case matches --scenes ${args.scenes?.join(",")}`);
  const skips: Skips = new Set();
  for (const c of cases) {
    const scene = sceneByName(c.scene);
    if (!scene) throw new Error(`scene "${c.scene}" not in the registry`);
    const built = c.transform ? c.transform(scene) : scene;
    for (const e of engines) {
      const missing = [...unsupportedShapes(e, built), ...unsupportedJoints(e, built)];
      if (missing.length === 0) continue;
      skips.add(pairKey(c.name, e));
      process.stderr.write(`${c.name} / ${e}: not run (the adapter builds no ${missing.join(", ")})\n`);
    }
  }
  return { engines, cases, skips };
}

interface Table {
  headers: string[];
  rows: string[][];
  align: ("left" | "right")[];
}

/** The Markdown table: one row per selected metric row, then the cross-run determinism row. */
function buildTable(
  args: BenchArgs,
  engines: string[],
  cases: RefCase[],
  skips: Skips,
  agg: Map<string, Map<string, Aggregate>>,
): Table {
  // Column layout: the references and "ours" always ("n/a" when not run), any other requested engine
  // after them, then ours' ratio to each reference, then the anchors.
  const columns = [...new Set(["cannon-es", "rapier", "rapier-simd", "ours", ...engines])];
  const ratioHeaders = REFERENCE_ENGINES.map((e) => `ours/${e === "cannon-es" ? "cannon" : e}`);
  const headers = ["scene", "metric", ...columns, ...ratioHeaders, "anchors: cannon / rapier"];
  const align = headers.map((_, i) => (i >= 2 && i < headers.length - 1 ? "right" : "left") as "left" | "right");
  const rows: string[][] = [];
  const selected = new Set(cases.map((c) => c.name));
  for (const row of ROWS) {
    if (!selected.has(row.caseName)) continue;
    const byEngine = agg.get(row.caseName);
    const c = CASES.find((x) => x.name === row.caseName)!;
    const steps = args.quick ? c.quickSteps : c.steps;
    const any = byEngine ? [...byEngine.values()][0] : undefined;
    rows.push([
      row.scene,
      row.metric(steps, any),
      ...columns.map((e) =>
        engines.includes(e) && !skips.has(pairKey(row.caseName, e)) ? cell(row.kind, byEngine?.get(e), row.key) : "n/a",
      ),
      ...REFERENCE_ENGINES.map((e) => ratio(row.kind, byEngine?.get("ours"), byEngine?.get(e), row.key)),
      row.anchor,
    ]);
  }
  // Determinism across processes: final-state hash equal in every run of every case.
  if (args.runs > 1) {
    rows.push([
      "all cases",
      "final state identical in all runs",
      ...columns.map((e) => {
        if (!engines.includes(e)) return "n/a";
        const differ = cases.filter((c) => agg.get(c.name)?.get(e)?.same.hash === false).map((c) => c.name);
        if (cases.every((c) => skips.has(pairKey(c.name, e)))) return "n/a";
        return differ.length === 0 ? "yes" : `no: ${differ.join(",")}`;
      }),
      ...REFERENCE_ENGINES.map(() => ""),
      "identical / identical",
    ]);
  }
  return { headers, rows, align };
}

/** Writes the report to stdout; any failed run sets a non-zero exit code. */
function printReport(args: BenchArgs, table: Table, results: RunResult[]): void {
  const failures = results.filter((r) => !r.ok);
  process.stdout.write(
    `\n## Reference bench (${new Date().toISOString()}, Node ${process.version}, ${args.runs} run(s) per cell, ` +
      `each a fresh process${args.quick ? ", QUICK: not comparable to the anchors" : ""})\n` +
      `scenes: ${SCENE_SOURCE}; ms/step = median over runs of each run's median step time in the window\n\n`,
  );
  printTable(table.headers, table.rows, table.align);
  process.stdout.write(
    "\nx = bullet centre's distance along its path after the last step. CCD on = every dynamic body gets CCD " +
      "(world.ccd); Rapier (0.21, and the 0.20 SIMD build) then lets the bullet through a CCD-enabled dynamic " +
      "wall (dimforge/rapier#984), with CCD on the bullet only it stops. cannon-es has no CCD. shapes1000: cannon-es " +
      "n/a (its adapter builds spheres and boxes only). Joints: Rapier impulse joints at its defaults; cannon-es n/a " +
      "where a scene has joints it lacks (hinge limits, sliders, distance joints). Chain stretch = sum of the chain's " +
      "joint anchor gaps over its rest length, from body poses; max sampled every 10th step.\n",
  );
  if (failures.length > 0) {
    process.stdout.write(`\n${failures.length} run(s) failed:\n`);
    for (const f of failures) process.stdout.write(`- ${f.caseName} / ${f.engine} run ${f.run}: ${f.error?.split("\n")[0]}\n`);
    process.exitCode = 1;
  }
}

function main(): void {
  const args = parseBenchArgs();
  const script = fileURLToPath(import.meta.url);

  if (args.child) {
    runChild(args, args.child);
    return;
  }

  const { engines, cases, skips } = selectMatrix(args);

  process.stderr.write(
    `reference bench: ${cases.length} cases x ${engines.length} engines x ${args.runs} runs${args.quick ? " (quick)" : ""}\n`,
  );
  const results: RunResult[] = runMatrix({
    script,
    cases: cases.map((c) => c.name),
    engines,
    runs: args.runs,
    childArgs: args.quick ? ["--quick"] : [],
    summary: summarizeRun,
    skip: (caseName, engine) => skips.has(pairKey(caseName, engine)),
  });
  const agg = aggregate(results);
  printReport(args, buildTable(args, engines, cases, skips, agg), results);
}

main();
