/**
 * Headless simulator: runs a scenario and prints NDJSON states to stdout.
 *
 *   npm run -s sim -- <file.json | builtin-name> [--ticks N] [--every K] [--events] [--set world.velocityIterations=1]... [--save-snapshot F]
 *   npm run -s sim -- --from-snapshot F [--ticks N] [--every K] [--events] [--save-snapshot F]
 *
 * stdout: the start state ("tick":0, or the saved tick), then one line after every K-th tick, then one
 * after the last step unless it was just printed. Logs and the summary go to stderr. Invalid scenario:
 * every problem on stderr with its path, exit code 2; a snapshot file that cannot be read or written:
 * one line, exit 2. A reader that stops early (`| head`) ends the run quietly, exit 0.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { decodeSnapshot, encodeSnapshot, World, type WorldSnapshot } from "../shared/engine/index.ts";
import {
  builtinNames,
  formatIssues,
  getBuiltinScenario,
  loadScenario,
  parseScenarioJson,
  type Scenario,
  validateScenario,
} from "../shared/scenarios/index.ts";

const USAGE = `usage: npm run -s sim -- <file.json | builtin> [--ticks N] [--every K] [--events] [--set path=value]... [--save-snapshot F]
       npm run -s sim -- --from-snapshot F [--ticks N] [--every K] [--events] [--save-snapshot F]

  Runs a scenario headless and prints NDJSON on stdout: the start state (tick 0), a line after every
  K-th tick and one after the last; each line has tick, hash, kineticEnergy, awake and every body's
  position, rotation, velocities and sleeping flag. The summary goes to stderr.

  --ticks N            steps to run (default 600)
  --every K            print every K-th tick (default 60)
  --events             also print one line per contact/sensor/joint-break event, before the state line of
                       its tick: {"event":"contactBegin","tick":N,"a":id,"b":id,"impulse":x}, contactEnd
                       (a, b), {"event":"sensorEnter","tick":N,"sensor":id,"body":id}, sensorExit,
                       {"event":"jointBreak","tick":N,"joint":id}
  --set path=value     override a scenario field before validation, e.g. --set world.velocityIterations=1
                       (value parsed as JSON when it is, else a string); repeatable
  --save-snapshot F    after the last tick, write the world's exact state and its scenario to file F
  --from-snapshot F    start from such a file instead of a scenario (give no scenario and no --set): the
                       start line is the saved tick, and the run continues exactly as the saved one would
                       have (same hashes, same events; the saved tick's own events are not printed again,
                       and a joint that broke before it stays broken without a second jointBreak line)
  -h, --help           this text

  npm's -s keeps its banner off stdout. Exit 0, or 2 with every problem of an invalid scenario, a usage
  error, or one line about a snapshot file that cannot be read or written.
`;

function usage(message: string): never {
  process.stderr.write(`${message}\n${USAGE}built-ins: ${builtinNames().join(", ")}\n`);
  process.exit(2);
}

/** A closed stdout (the reader stopped early, e.g. `| head`) ends the run quietly: exit 0, no stack trace. */
function isBrokenPipe(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | null)?.code === "EPIPE";
}
process.stdout.on("error", (err) => {
  if (isBrokenPipe(err)) process.exit(0);
  throw err;
});

/** Writes to stdout and waits until it is handed to the pipe, so a closed pipe stops the run promptly. */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve) => {
    process.stdout.write(text, (err) => {
      if (isBrokenPipe(err)) process.exit(0);
      resolve();
    });
  });
}

/** A problem with a snapshot file: one line on stderr, exit 2. */
function fileError(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** Where a run starts: a scenario (file or built-in) at tick 0, or a file --save-snapshot wrote. */
type Start = { scenario: string } | { snapshot: string };

function parseArgs(argv: string[]) {
  let source: string | undefined;
  let fromSnapshot: string | undefined;
  let saveSnapshot: string | undefined;
  let ticks = 600;
  let every = 60;
  let events = false;
  const sets: [string, string][] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--ticks" || a === "--every") {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < (a === "--ticks" ? 0 : 1)) usage(`${a} needs a ${a === "--ticks" ? "non-negative" : "positive"} integer`);
      if (a === "--ticks") ticks = v;
      else every = v;
    } else if (a === "--set") {
      const kv = argv[++i] ?? "";
      const eq = kv.indexOf("=");
      if (eq <= 0) usage(`--set needs path=value, got "${kv}"`);
      sets.push([kv.slice(0, eq), kv.slice(eq + 1)]);
    } else if (a === "--events") {
      events = true;
    } else if (a === "--save-snapshot" || a === "--from-snapshot") {
      const file = argv[++i];
      if (file === undefined || file === "") usage(`${a} needs a file name`);
      if (a === "--save-snapshot") saveSnapshot = file;
      else fromSnapshot = file;
    } else if (a === "--help" || a === "-h") {
      process.stdout.write(`${USAGE}built-ins: ${builtinNames().join(", ")}\n`);
      process.exit(0);
    } else if (a.startsWith("-")) {
      usage(`unknown option ${a}`);
    } else if (source === undefined) {
      source = a;
    } else {
      usage(`unexpected argument ${a}`);
    }
  }
  if (fromSnapshot !== undefined) {
    if (source !== undefined) usage(`--from-snapshot starts from the file's scenario: give it or a scenario (${source}), not both`);
    if (sets.length > 0) usage("--set cannot change a run restored with --from-snapshot (the snapshot holds the scenario as it ran)");
    return { start: { snapshot: fromSnapshot } as Start, ticks, every, events, sets, saveSnapshot };
  }
  if (source === undefined) usage("missing scenario (or --from-snapshot F)");
  return { start: { scenario: source } as Start, ticks, every, events, sets, saveSnapshot };
}

/** Sets `path` (dot-separated, e.g. world.positionCorrection.slop) in a plain object; value parsed as JSON if it can be. */
function applySet(target: Record<string, unknown>, path: string, raw: string): void {
  let value: unknown = raw;
  try {
    value = JSON.parse(raw);
  } catch {
    // Not JSON: keep the raw string (e.g. --set world.positionCorrection.method=projection).
  }
  const keys = path.split(".");
  let obj = target;
  for (const key of keys.slice(0, -1)) {
    const next = obj[key];
    if (next === undefined || next === null) obj[key] = {};
    else if (typeof next !== "object" || Array.isArray(next)) usage(`--set ${path}: ${key} is not an object`);
    obj = obj[key] as Record<string, unknown>;
  }
  obj[keys[keys.length - 1]] = value;
}

function readScenario(source: string): unknown {
  const builtin = getBuiltinScenario(source);
  if (builtin) return builtin;
  let text: string;
  try {
    text = readFileSync(source, "utf8");
  } catch (e) {
    usage(`cannot read ${source}: ${(e as Error).message} (and it is not a built-in scenario)`);
  }
  const parsed = parseScenarioJson(text);
  if (!parsed.ok) {
    process.stderr.write(`${formatIssues(parsed.issues)}\n`);
    process.exit(2);
  }
  return parsed.scenario;
}

/** The step's contact, sensor and joint-break events as NDJSON lines (`--events`). */
function eventLines(world: World, out: string[]): void {
  world.forEachEvent((e) => {
    const tick = world.tick;
    if (e.type === "sensorEnter" || e.type === "sensorExit") out.push(JSON.stringify({ event: e.type, tick, sensor: e.a, body: e.b }));
    else if (e.type === "contactBegin") out.push(JSON.stringify({ event: e.type, tick, a: e.a, b: e.b, impulse: e.impulse }));
    else if (e.type === "jointBreak") out.push(JSON.stringify({ event: e.type, tick, joint: e.joint }));
    else out.push(JSON.stringify({ event: e.type, tick, a: e.a, b: e.b }));
  });
}

/**
 * What `--save-snapshot` writes and `--from-snapshot` reads (snapshot kind "simulator"): the scenario as
 * it ran (after --set), for the state lines' body ids, the handle of each of its bodies, and the world.
 */
const SNAPSHOT_KIND = "simulator";

interface SavedRun {
  scenario: Scenario;
  tick: number;
  handles: number[];
  world: WorldSnapshot;
}

function saveRun(file: string, run: SavedRun): void {
  const bytes = encodeSnapshot(run, SNAPSHOT_KIND);
  try {
    writeFileSync(file, bytes);
  } catch (e) {
    fileError(`cannot write snapshot ${file}: ${(e as Error).message}`);
  }
}

function loadRun(file: string): { scenario: Scenario; world: World; handles: number[] } {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(file);
  } catch (e) {
    fileError(`cannot read snapshot ${file}: ${(e as Error).message}`);
  }
  try {
    const run = decodeSnapshot(bytes, SNAPSHOT_KIND) as Partial<SavedRun> | null;
    const shaped = typeof run === "object" && run !== null && typeof run.tick === "number" && typeof run.world === "object";
    if (!shaped || !Array.isArray(run.handles) || !run.handles.every(Number.isInteger)) throw new Error("the payload is not a saved simulator run");
    const checked = validateScenario(run.scenario);
    if (!checked.ok) throw new Error(`its scenario is invalid: ${formatIssues(checked.issues).split("\n")[0]}`);
    if (run.handles.length !== checked.scenario.bodies.length) throw new Error("its body handles do not match its scenario");
    const world = World.fromSnapshot(run.world as WorldSnapshot);
    if (world.tick !== run.tick) throw new Error(`its world is at tick ${world.tick}, the file says ${run.tick}`);
    return { scenario: checked.scenario, world, handles: run.handles };
  } catch (e) {
    fileError(`${file}: ${(e as Error).message}`);
  }
}

/** The run's scenario (with --set applied, validated) and its world at tick 0. */
function startFromScenario(source: string, sets: [string, string][]): { scenario: Scenario; world: World; handles: number[] } {
  const raw = structuredClone(readScenario(source)) as Record<string, unknown>;
  for (const [path, value] of sets) applySet(raw, path, value);
  const checked = validateScenario(raw);
  if (!checked.ok) {
    process.stderr.write(`${formatIssues(checked.issues)}\n`);
    process.exit(2);
  }
  const { world, handles } = loadScenario(checked.scenario);
  return { scenario: checked.scenario, world, handles };
}

function stateLine(world: World, scenario: Scenario, handles: number[]): string {
  const bodies = scenario.bodies.map((def, i) => {
    const h = handles[i];
    if (!world.has(h)) return { id: def.id, removed: true };
    return {
      id: def.id,
      position: world.getPosition(h),
      rotation: world.getRotation(h),
      linearVelocity: world.getLinearVelocity(h),
      angularVelocity: world.getAngularVelocity(h),
      sleeping: world.isSleeping(h),
    };
  });
  return JSON.stringify({
    tick: world.tick,
    hash: world.stateHash(),
    kineticEnergy: world.kineticEnergy(),
    awake: world.awakeBodyCount,
    bodies,
  });
}

const { start, ticks, every, events, sets, saveSnapshot } = parseArgs(process.argv.slice(2));
const { scenario, world, handles } = "snapshot" in start ? loadRun(start.snapshot) : startFromScenario(start.scenario, sets);
const out: string[] = [stateLine(world, scenario, handles)];
const started = performance.now();
// --every counts the world's ticks, so a run continued from a snapshot prints the same ticks as one that never stopped.
for (let t = 1; t <= ticks; t++) {
  world.step();
  if (events) eventLines(world, out);
  if (world.tick % every === 0 || t === ticks) out.push(stateLine(world, scenario, handles));
  if (out.length >= 64) await writeOut(`${out.splice(0).join("\n")}\n`);
}
if (out.length > 0) await writeOut(`${out.join("\n")}\n`);
const ms = performance.now() - started;
if (saveSnapshot !== undefined) saveRun(saveSnapshot, { scenario, tick: world.tick, handles, world: world.snapshot() });
process.stderr.write(
  `${scenario.name}: ${ticks} ticks in ${ms.toFixed(1)} ms (${ticks > 0 ? (ms / ticks).toFixed(3) : "0"} ms/tick), ` +
    `${world.bodyCount} bodies, ${world.awakeBodyCount} awake, final hash ${world.stateHash()}\n`,
);
