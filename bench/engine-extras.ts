/**
 * Our engine only: what the reference table cannot show.
 *   1. Per-stage timings (world.profile) for the big scenes.
 *   2. Broad-phase scaling: 1k, 4k, 16k sparse moving spheres; ms/step series and the fitted exponent.
 *   3. Allocation in step(): GC events and estimated bytes over 1000 steps of pile1000 and heap1000
 *      after warm-up (target: zero).
 *   4. Snapshots as bytes: size after 300 steps of the big scenes, and the time to take, encode, decode
 *      and restore one.
 *
 * Run: ./node_modules/.bin/node bench/engine-extras.ts [--quick] [--only stages|scaling|allocation|snapshots]
 * (part of `npm run bench`). Each section runs in this process, one scene after another; medians of
 * per-step times.
 */
import { decodeWorldSnapshot, encodeWorldSnapshot, World } from "../shared/engine/index.ts";
import { shapes1000 } from "../shared/scenarios/builtins/shapes1000.ts";
import { createPrng, getBuiltinScenario, loadScenario, type Scenario } from "../shared/scenarios/index.ts";
import { solverPasses } from "../server/cpu/cost-model.ts";
import { fitExponent, fmt, median, measureGc, printTable } from "./harness.ts";

const quick = process.argv.includes("--quick");
const SECTIONS = ["stages", "scaling", "allocation", "snapshots"] as const;
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : undefined;
if (only !== undefined && !(SECTIONS as readonly string[]).includes(only)) {
  process.stderr.write(`--only takes one of ${SECTIONS.join(", ")}\n`);
  process.exit(2);
}
const runs = (section: (typeof SECTIONS)[number]): boolean => only === undefined || only === section;

/** A built-in scene, or shapes1000 from its own file while the registry does not list it. */
function scene(name: string): Scenario {
  const s = getBuiltinScenario(name) ?? (name === "shapes1000" ? shapes1000() : undefined);
  if (!s) throw new Error(`scene "${name}" not in the registry`);
  return s;
}

function profileScene(name: string, warm: number, measured: number): string[] {
  const { world } = loadScenario(scene(name));
  world.profiling = true;
  for (let i = 0; i < warm; i++) world.step();
  const keys = ["broad", "narrow", "ccd", "solve", "integrate", "islands", "total"] as const;
  const series: Record<string, number[]> = {};
  for (const k of keys) series[k] = [];
  for (let i = 0; i < measured; i++) {
    world.step();
    for (const k of keys) series[k].push(world.profile[k]);
  }
  const s = world.lastStepStats;
  // The solve stage over every constraint pass it makes (warm starts, solves, relax solves): what one
  // constraint costs per pass, the figure the per-pass cost model (server/cpu/cost-model.ts) prices.
  const passes = solverPasses(world.settings).constraint;
  const perPass = s.constraints > 0 ? (median(series.solve) * 1e6) / (s.constraints * passes) : 0;
  return [
    name,
    `${warm + 1}-${warm + measured}`,
    ...keys.map((k) => fmt(median(series[k]), 3)),
    fmt(perPass, 3),
    `${s.broadPairs} / ${s.recycled} / ${s.constraints}`,
  ];
}

/** n spheres of radius 0.5 at random in a cube sized for ~1 neighbour each, moving at random, no gravity. */
function sparseWorld(n: number): World {
  const world = new World({ gravity: [0, 0, 0], sleep: false });
  const prng = createPrng(n);
  const side = Math.cbrt(n) * 3;
  for (let i = 0; i < n; i++) {
    world.createBody({
      id: `s${i}`,
      type: "dynamic",
      shape: { type: "sphere", radius: 0.5 },
      position: [prng.range(0, side), prng.range(0, side), prng.range(0, side)],
      linearVelocity: [prng.range(-1, 1), prng.range(-1, 1), prng.range(-1, 1)],
      restitution: 1,
    });
  }
  // Walls are not needed: over the measured window the spheres move a few metres at most.
  return world;
}

function scaling(counts: number[], steps: number): string[][] {
  const rows: string[][] = [];
  const ms: number[] = [];
  const broad: number[] = [];
  for (const n of counts) {
    const world = sparseWorld(n);
    world.profiling = true;
    for (let i = 0; i < 30; i++) world.step();
    const total: number[] = [];
    const bp: number[] = [];
    for (let i = 0; i < steps; i++) {
      world.step();
      total.push(world.profile.total);
      bp.push(world.profile.broad);
    }
    ms.push(median(total));
    broad.push(median(bp));
    rows.push([String(n), fmt(median(total), 3), fmt(median(bp), 3), String(world.lastStepStats.broadPairs)]);
  }
  rows.push(["fitted exponent", fmt(fitExponent(counts, ms), 2), fmt(fitExponent(counts, broad), 2), ""]);
  return rows;
}

async function allocation(name: string, warm: number, steps: number): Promise<string[]> {
  const { world } = loadScenario(scene(name));
  for (let i = 0; i < warm; i++) world.step();
  const { report } = await measureGc(() => {
    for (let i = 0; i < steps; i++) world.step();
  });
  return [
    name,
    `${warm + 1}-${warm + steps}`,
    String(report.gcCount),
    fmt(report.allocatedBytes / steps, 1),
    fmt(report.heapUsedDelta / 1024, 1),
  ];
}

/** Milliseconds one call of `fn` takes. */
function timed<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const value = fn();
  return [value, performance.now() - t0];
}

/**
 * A scene after `warm` steps: its snapshot's size in bytes, and medians over `repeats` rounds of taking
 * and encoding it, decoding it and restoring it into a fresh world (checked to hash the same).
 */
function snapshotRow(name: string, warm: number, repeats: number): string[] {
  const { world } = loadScenario(scene(name));
  for (let i = 0; i < warm; i++) world.step();
  const hash = world.stateHash();
  const encodeMs: number[] = [];
  const decodeMs: number[] = [];
  const restoreMs: number[] = [];
  let size = 0;
  for (let r = 0; r < repeats; r++) {
    const [bytes, encode] = timed(() => encodeWorldSnapshot(world.snapshot()));
    const [snapshot, decode] = timed(() => decodeWorldSnapshot(bytes));
    const [restored, restore] = timed(() => World.fromSnapshot(snapshot));
    if (restored.stateHash() !== hash) throw new Error(`${name}: the restored world hashes differently`);
    size = bytes.length;
    encodeMs.push(encode);
    decodeMs.push(decode);
    restoreMs.push(restore);
  }
  const total = encodeMs.map((e, i) => e + decodeMs[i] + restoreMs[i]);
  return [
    name,
    String(warm),
    String(world.bodyCount),
    String(size),
    fmt(size / world.bodyCount, 0),
    fmt(median(encodeMs), 2),
    fmt(median(decodeMs), 2),
    fmt(median(restoreMs), 2),
    fmt(median(total), 2),
  ];
}

function snapshotSection(): void {
  process.stdout.write(`\n## Snapshots as bytes (after 300 steps; ms, medians of ${quick ? 3 : 9} rounds)\n\n`);
  printTable(
    ["scene", "steps", "bodies", "bytes", "bytes/body", "snapshot + encode", "decode", "restore", "total"],
    ["pile1000", "heap1000", "rain2000"].map((n) => snapshotRow(n, 300, quick ? 3 : 9)),
    ["left", "left", "right", "right", "right", "right", "right", "right", "right"],
  );
}

function stagesSection(): void {
  process.stdout.write(`\n## Our engine: stage timings (ms/step, medians; world.profile)\n\n`);
  const scenes: [string, number, number][] = [
    ["pyramid20", 30, quick ? 60 : 570],
    ["pile1000", 300, quick ? 60 : 300],
    ["heap1000", 300, quick ? 60 : 300],
    ["rain2000", 300, quick ? 60 : 300],
    ["shapes1000", 300, quick ? 60 : 300],
    ["arena", 60, quick ? 60 : 300],
  ];
  printTable(
    ["scene", "steps", "broad", "narrow", "ccd", "solve", "integrate", "islands", "total", "solve ns / constraint pass", "pairs / recycled / constraints (last step)"],
    scenes.map(([n, w, m]) => profileScene(n, w, m)),
    ["left", "left", "right", "right", "right", "right", "right", "right", "right", "right", "right"],
  );
}

function scalingSection(): void {
  process.stdout.write(`\n## Broad-phase scaling: sparse moving spheres (ms/step, medians)\n\n`);
  printTable(
    ["bodies", "step", "broad phase", "pairs"],
    scaling(quick ? [1000, 4000] : [1000, 4000, 16000], quick ? 30 : 120),
    ["left", "right", "right", "right"],
  );
  process.stdout.write("\nn log n would fit an exponent of about 1.1-1.2 over this range; quadratic would be 2.\n");
}

async function allocationSection(): Promise<void> {
  process.stdout.write(`\n## Allocation in step() after warm-up (target: 0)\n\n`);
  const steps = quick ? 200 : 1000;
  printTable(
    ["scene", "steps", "GC events", "bytes/step (estimate)", "heapUsed delta, KB"],
    [await allocation("pile1000", 300, steps), await allocation("heap1000", 300, steps)],
    ["left", "left", "right", "right", "right"],
  );
}

async function main(): Promise<void> {
  if (runs("stages")) stagesSection();
  if (runs("scaling")) scalingSection();
  if (runs("allocation")) await allocationSection();
  if (runs("snapshots")) snapshotSection();
}

void main();
