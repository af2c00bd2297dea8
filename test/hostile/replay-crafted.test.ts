import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SimInput, RoomSim } from "../../shared/sim/index.ts";
import { MAX_SECONDS_PER_TICK } from "../../server/replay/format.ts";
import { ReplayRecorder } from "../../server/replay/recorder.ts";
import { ADMIN_ROOM_CAPS } from "../../server/rooms/room-caps.ts";
import { resolveScenario } from "../../server/scenario-input.ts";

/**
 * Hostile replay files (issue 10): a real recording (RoomSim + ReplayRecorder, every input type), then
 * 50 corrupted copies, each checked with the CLI exactly as server/README.md shows it
 * (`npm run replay -- verify <file>`), a few at a time. Every file is answered within 5 s (the number
 * the issue sets), with exit 0, 1 or 2; an invalid file names its line and the problem, and nothing ever
 * prints a stack trace or "Cannot read properties".
 */

const REPO = fileURLToPath(new URL("../..", import.meta.url));
/** Required by the issue: every file is answered within this long. */
const ANSWER_MS = 5000;
/** Files checked at once (two cores, shared with other work). */
const BATCH = 2;
const KEYFRAME_INTERVAL = 30;
const TICKS = 90;

let dir: string;
/** The real recording, one string per line (no trailing empty string). */
let base: string[];

interface Case {
  name: string;
  /** File content. */
  text: string;
  /** Extra CLI arguments. */
  args?: string[];
  code: 0 | 1 | 2;
  /** 1-based line the message must name (`line N`), for invalid files and divergences. */
  line?: number;
  /** What the output must also say (the problem). */
  says: RegExp;
  /** Keeps a core busy for its whole time budget: checked on its own, not next to another file. */
  alone?: boolean;
}

interface Outcome {
  code: number | null;
  out: string;
  ms: number;
}

function runCli(file: string, args: string[] = [], command = "verify"): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "replay", "--", command, file, ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, ms: performance.now() - started }));
  });
}

/** The recording a real room would write: two players, every kind of input, keyframes, an end line. */
async function record(): Promise<string> {
  // Small scenes: most of each check is then the CLI's own start, and no valid file nears the time budget.
  const stack = resolveScenario("stack10");
  const pyramid = resolveScenario("pyramid20");
  if (!stack.ok || !pyramid.ok) throw new Error("built-in scenarios must resolve");
  const sim = new RoomSim(stack.scenario, { maxBodies: 100 });
  const recorder = new ReplayRecorder(dir, "base", sim, KEYFRAME_INTERVAL);
  const script = new Map<number, SimInput[]>([
    [
      0,
      [
        { type: "join", session: "playerA1" },
        { type: "join", session: "playerB2" },
      ],
    ],
    [4, [{ type: "move", session: "playerA1", vx: 3, vz: 1 }]],
    [9, [{ type: "input", session: "playerA1", name: "spawn", message: { shape: "box", size: 0.3, velocity: [1, 2, 0] } }]],
    [19, [{ type: "input", session: "playerB2", name: "impulse", message: { bodyId: "box7", impulse: [2, 6, -1] } }]],
    [29, [{ type: "settings", patch: { velocityIterations: 12, friction: 0.4, gravity: [0, -9, 0] } }]],
    [39, [{ type: "move", session: "playerB2", vx: -2, vz: 2, jump: true }]],
    [59, [{ type: "load", scenario: pyramid.scenario }]],
    [74, [{ type: "leave", session: "playerB2" }]],
  ]);
  for (let t = 0; t < TICKS; t++) {
    for (const input of script.get(t) ?? []) sim.enqueue(input);
    recorder.record(sim.step(), sim);
    if (t % 30 === 0) await recorder.flush();
  }
  await recorder.close(sim, "dispose");
  return recorder.path;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "replay-crafted-"));
  const file = await record();
  base = readFileSync(file, "utf8").trimEnd().split("\n");
  // `info` validates the same way without simulating. Not timed: the first run after a change to the
  // sources also fills Node's compile cache, which the timed runs below then share.
  const info = await runCli(file, [], "info");
  expect(info.code).toBe(0);
  expect(info.out).toMatch(/valid: +every line passes the server's validation/);
  // The sandbox's spawn and impulse are game inputs (type "input"): counted by name or together.
  expect(info.out).toMatch(/inputs: +join 2, move 2, (spawn 1, impulse 1|input 2), settings 1, load 1, leave 1/);
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------- crafting helpers

const text = (lines: string[]): string => `${lines.join("\n")}\n`;
/** Index (0-based) of the first line matching. */
function find(test: (line: string) => boolean): number {
  const k = base.findIndex(test);
  if (k < 0) throw new Error("line not found in the base recording");
  return k;
}
const tickIndex = (t: number): number => find((l) => l.startsWith(`{"t":${t},`));
const inputIndex = (type: string): number => find((l) => l.includes(`"i":[{"type":"${type}"`));
/** Index of the first line whose first input is the game input `name` (`{"type":"input",…,"name":…}`). */
const gameInputIndex = (name: string): number => find((l) => l.includes(`"i":[{"type":"input",`) && l.includes(`"name":"${name}"`));
const keyframeIndex = (t: number): number => find((l) => l.startsWith(`{"type":"keyframe","t":${t},`));
const endIndex = (): number => find((l) => l.startsWith(`{"type":"end"`));
/** The base with line k replaced by what `edit` makes of its parsed object. */
function edited(k: number, edit: (value: Record<string, unknown>) => unknown): string[] {
  const lines = [...base];
  lines[k] = JSON.stringify(edit(JSON.parse(base[k])));
  return lines;
}
function withLine(k: number, line: string): string[] {
  const lines = [...base];
  lines[k] = line;
  return lines;
}
/** The first input of line k, edited. */
function editInput(k: number, edit: (input: Record<string, unknown>) => void): string[] {
  return edited(k, (v) => {
    edit((v.i as Record<string, unknown>[])[0]);
    return v;
  });
}
const header = (edit: (h: Record<string, unknown>) => void): string[] =>
  edited(0, (h) => {
    edit(h);
    return h;
  });
const scenarioOf = (h: Record<string, unknown>) => h.scenario as { name: string; world?: Record<string, unknown>; bodies: Record<string, unknown>[] };

function spheres(count: number, spot: boolean): Record<string, unknown>[] {
  const bodies: Record<string, unknown>[] = [{ id: "ground", type: "static", shape: { type: "box", halfExtents: [50, 0.5, 50] }, position: [0, -0.5, 0] }];
  for (let i = 0; i < count; i++) {
    bodies.push({ id: `s${i}`, type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: spot ? [0, 1, 0] : [(i % 400) - 200, 1, Math.floor(i / 400)] });
  }
  return bodies;
}

function cases(): Case[] {
  const l = (k: number) => k + 1;
  const settings = inputIndex("settings");
  const move = inputIndex("move");
  const spawnAt = gameInputIndex("spawn");
  const impulse = gameInputIndex("impulse");
  const join = inputIndex("join");
  const load = inputIndex("load");
  const kf = keyframeIndex(KEYFRAME_INTERVAL);
  const end = endIndex();
  const t10 = tickIndex(10);
  const t11 = tickIndex(11);
  const last = base.length - 1;
  return [
    // Files that verify (exit 0).
    { name: "the real recording", text: text(base), code: 0, says: /^OK .*every tick's hash matches/m },
    { name: "cut short inside the last line", text: text(base).slice(0, -25), code: 0, line: l(last), says: /incomplete and was ignored/ },
    { name: "no end line", text: text(base.slice(0, end)), code: 0, says: /no end line/ },
    { name: "CRLF line endings", text: `${base.join("\r\n")}\r\n`, code: 0, says: /^OK /m },

    // Files that diverge (exit 1).
    { name: "a tick's hash changed", text: text(edited(t10, (v) => ({ ...v, h: "0123456789abcdef" }))), code: 1, line: l(t10), says: /first diverging tick 10 \(line \d+/ },
    {
      name: "a keyframe body hash changed",
      text: text(
        edited(kf, (v) => {
          (v.bodies as unknown[][])[3][1] = "00000000";
          return v;
        }),
      ),
      code: 1,
      line: l(kf),
      says: new RegExp(`bodies differ at the keyframe of tick ${KEYFRAME_INTERVAL}`),
    },
    { name: "a move changed", text: text(editInput(move, (i) => (i.vx = 2.5))), code: 1, line: l(move), says: /first diverging tick/ },

    // Time bombs.
    {
      name: "a header with 200k bodies",
      text: text(header((h) => (scenarioOf(h).bodies = spheres(200_000, false)))),
      code: 2,
      line: 1,
      says: /longer than \d+ bytes: larger than any replay header/,
    },
    {
      name: "a header scenario with 1e7 velocity iterations",
      text: text(header((h) => (scenarioOf(h).world = { velocityIterations: 1e7 }))),
      code: 2,
      line: 1,
      says: /header\.scenario\.world\.velocityIterations/,
    },
    { name: "a settings input with 1e7 iterations", text: text(editInput(settings, (i) => (i.patch = { velocityIterations: 1e7 }))), code: 2, line: l(settings), says: /i\[0\]\.patch\.velocityIterations: must be <= 64/ },
    { name: "a settings input with an unknown knob", text: text(editInput(settings, (i) => (i.patch = { turbo: true }))), code: 2, line: l(settings), says: /i\[0\]\.patch: must NOT have additional properties \("turbo"\)/ },
    { name: "a settings input with huge gravity", text: text(editInput(settings, (i) => (i.patch = { gravity: [0, -1e9, 0] }))), code: 2, line: l(settings), says: /i\[0\]\.patch\.gravity\[1\]: must be >= -100/ },
    { name: "a settings input with a string for a number", text: text(editInput(settings, (i) => (i.patch = { velocityIterations: "8" }))), code: 2, line: l(settings), says: /velocityIterations: must be integer/ },
    {
      name: "a load of a 1e7-iteration scenario",
      text: text(editInput(load, (i) => ((i.scenario as { world: unknown }).world = { velocityIterations: 1e7 }))),
      code: 2,
      line: l(load),
      says: /i\[0\]\.scenario\.world\.velocityIterations/,
    },
    { name: "a load whose bodies are not a list", text: text(editInput(load, (i) => ((i.scenario as { bodies: unknown }).bodies = "many"))), code: 2, line: l(load), says: /i\[0\]\.scenario\.bodies: expected array/ },
    {
      name: "65 players at once",
      text: text(
        edited(join, (v) => {
          v.i = Array.from({ length: ADMIN_ROOM_CAPS.maxClients + 1 }, (_, k) => ({ type: "join", session: `p${k}` }));
          return v;
        }),
      ),
      code: 2,
      line: l(join),
      says: /players at once, more than any room admits/,
    },

    // Structure.
    { name: "a second header line", text: text([base[0], base[1], base[0], ...base.slice(2)]), code: 2, line: 3, says: /a second header/ },
    { name: "a header at the end", text: text([...base, base[0]]), code: 2, line: base.length + 1, says: /a line after the end line/ },
    { name: "inputs that are not a list", text: text(edited(move, (v) => ({ ...v, i: { type: "move" } }))), code: 2, line: l(move), says: /i: must be a list of inputs/ },
    { name: "a null line", text: text(withLine(t10, "null")), code: 2, line: l(t10), says: /must be a JSON object, got null/ },
    { name: "a list line", text: text(withLine(t10, "[]")), code: 2, line: l(t10), says: /must be a JSON object, got a list/ },
    { name: "truncated JSON mid-file", text: text(withLine(t10, base[t10].slice(0, 20))), code: 2, line: l(t10), says: /not JSON/ },
    { name: "an empty file", text: "", code: 2, line: 1, says: /missing header: the file is empty/ },
    { name: "no header", text: text(base.slice(1)), code: 2, line: 1, says: /not a replay header/ },
    { name: "a header cut short", text: base[0].slice(0, 200), code: 2, line: 1, says: /the file ends inside the header line/ },

    // Wrong types and values in the header.
    { name: "no scenario in the header", text: text(header((h) => delete h.scenario)), code: 2, line: 1, says: /header\.scenario: is required/ },
    { name: "a null scenario", text: text(header((h) => (h.scenario = null))), code: 2, line: 1, says: /header\.scenario: must be a built-in scenario name or a scenario object/ },
    { name: "a string tick rate", text: text(header((h) => (h.tickRate = "60"))), code: 2, line: 1, says: /header\.tickRate: the string "60", but the scenario runs at 60 Hz/ },
    { name: "another tick rate", text: text(header((h) => (h.tickRate = 61))), code: 2, line: 1, says: /header\.tickRate: 61, but the scenario runs at 60 Hz/ },
    { name: "another format", text: text(header((h) => (h.format = 2))), code: 2, line: 1, says: /header\.format: replay format 2/ },
    { name: "another engine", text: text(header((h) => (h.engineVersion = "0.0.0"))), code: 2, line: 1, says: /header\.engineVersion: recorded with engine 0\.0\.0/ },
    { name: "a billion max bodies", text: text(header((h) => (h.options = { ...(h.options as object), maxBodies: 1e9 }))), code: 2, line: 1, says: new RegExp(`header\\.options\\.maxBodies: must be an integer in 1\\.\\.${ADMIN_ROOM_CAPS.maxBodies}\\b`) },
    { name: "a NaN-ish keyframe interval", text: text(header((h) => (h.keyframeInterval = "NaN"))), code: 2, line: 1, says: /header\.keyframeInterval: must be an integer/ },
    {
      name: "a sphere with a string radius",
      text: text(header((h) => (scenarioOf(h).bodies[2].shape = { type: "sphere", radius: "x" }))),
      code: 2,
      line: 1,
      says: /header\.scenario\.bodies\[2\]\.shape\.radius: expected number/,
    },
    { name: "control characters in the room id", text: text(header((h) => (h.roomId = "a\u001b[2Jb"))), code: 2, line: 1, says: /header\.roomId: must not contain control characters/ },

    // Tick lines.
    { name: "ticks out of order", text: text(withLine(t10, base[t11])), code: 2, line: l(t10), says: /t: expected tick 10, found tick 11/ },
    { name: "a tick repeated", text: text([...base.slice(0, t11), base[t10], ...base.slice(t11)]), code: 2, line: l(t11), says: /t: expected tick 11, found tick 10/ },
    { name: "a string tick", text: text(edited(t10, (v) => ({ ...v, t: "10" }))), code: 2, line: l(t10), says: /t: expected tick 10, found the string "10"/ },
    { name: "a huge tick", text: text(withLine(t10, base[t10].replace('"t":10,', '"t":1e400,'))), code: 2, line: l(t10), says: /t: expected tick 10, found Infinity/ },
    { name: "a numeric hash", text: text(edited(t10, (v) => ({ ...v, h: 12345 }))), code: 2, line: l(t10), says: /h: must be a (world )?hash/ },
    { name: "an unknown input type", text: text(editInput(spawnAt, (i) => (i.type = "explode"))), code: 2, line: l(spawnAt), says: /i\[0\]\.type: unknown input type "explode"/ },
    { name: "an input the game does not have", text: text(editInput(spawnAt, (i) => (i.name = "explode"))), code: 2, line: l(spawnAt), says: /i\[0\]\.name: game "sandbox" has no input "explode"/ },
    { name: "a NaN-ish move", text: text(editInput(move, (i) => (i.vx = "NaN"))), code: 2, line: l(move), says: /i\[0\] \(move\): vx: .*expected number/ },
    { name: "a huge move", text: text(editInput(move, (i) => (i.vx = 1e308))), code: 2, line: l(move), says: /i\[0\] \(move\): vx: Too big/ },
    {
      name: "a huge impulse",
      text: text(editInput(impulse, (i) => ((i.message as Record<string, unknown>).impulse = [1e9, 0, 0]))),
      code: 2,
      line: l(impulse),
      says: /i\[0\] \(input impulse\): impulse\[0\]: Too big/,
    },
    { name: "a null session", text: text(editInput(join, (i) => (i.session = null))), code: 2, line: l(join), says: /i\[0\]\.session: must be a string, got null/ },
    { name: "an extra field in a tick line", text: text(edited(t10, (v) => ({ ...v, x: 1 }))), code: 2, line: l(t10), says: /x: unknown field "x"/ },
    { name: "an unknown line type", text: text(withLine(t10, '{"type":"snapshot","t":9}')), code: 2, line: l(t10), says: /type: unknown line type "snapshot"/ },

    // Keyframes and the end.
    { name: "a keyframe for another tick", text: text(edited(kf, (v) => ({ ...v, t: KEYFRAME_INTERVAL - 1 }))), code: 2, line: l(kf), says: new RegExp(`t: a keyframe for ${KEYFRAME_INTERVAL - 1} after tick ${KEYFRAME_INTERVAL}`) },
    { name: "keyframe bodies that are not a list", text: text(edited(kf, (v) => ({ ...v, bodies: {} }))), code: 2, line: l(kf), says: /bodies: must be a list/ },
    { name: "a malformed body digest", text: text(edited(kf, (v) => ({ ...v, bodies: [[1, 2]] }))), code: 2, line: l(kf), says: /bodies\[0\]: must be \[id, hash, x, y, z\]/ },
    { name: "an end line for another tick", text: text(edited(end, (v) => ({ ...v, t: 3 }))), code: 2, line: l(end), says: new RegExp(`t: an end line for 3 after tick ${TICKS}`) },

    // Budgets.
    { name: "larger than --max-bytes", text: text(base), args: ["--max-bytes", "20000"], code: 2, says: /the file is \d+ bytes, over the 20000-byte limit: refused unread/ },
    {
      // Valid within the admin caps, but 600 spheres in one spot at 64 iterations make one tick take many seconds.
      name: "a valid but hostile scenario (time budget)",
      text: text(
        header((h) => {
          scenarioOf(h).world = { velocityIterations: 64 };
          scenarioOf(h).bodies = spheres(600, true);
        }),
      ),
      code: 2,
      line: 2,
      // Stopped by the per-tick limit (a tick of this scenario takes seconds), well before the 5 s answer.
      says: new RegExp(`one tick took longer than ${MAX_SECONDS_PER_TICK} s while simulating tick 1 of \\d+`),
      alone: true,
    },
  ];
}

describe("crafted replay files", () => {
  it("answers each of 50+ crafted files within 5 s with exit 0, 1 or 2, naming the line and the problem of each invalid one", async () => {
    const all = cases();
    expect(all.length).toBeGreaterThanOrEqual(50);
    const files = all.map((c, k) => {
      const file = join(dir, `case-${String(k).padStart(2, "0")}.ndjson`);
      writeFileSync(file, c.text);
      return file;
    });
    // A few at a time; a file that keeps a core busy for its whole budget runs on its own.
    const outcomes: Outcome[] = new Array(all.length);
    const order = all.map((_, k) => k);
    const alone = order.filter((k) => all[k].alone);
    const shared = order.filter((k) => !all[k].alone);
    const batches = [...Array.from({ length: Math.ceil(shared.length / BATCH) }, (_, b) => shared.slice(b * BATCH, (b + 1) * BATCH)), ...alone.map((k) => [k])];
    for (const batch of batches) {
      const results = await Promise.all(batch.map((k) => runCli(files[k], all[k].args)));
      batch.forEach((k, j) => {
        outcomes[k] = results[j];
      });
    }
    const failures: string[] = [];
    all.forEach((c, k) => {
      const o = outcomes[k];
      const problems: string[] = [];
      if (o.ms >= ANSWER_MS) problems.push(`answered after ${Math.round(o.ms)} ms`);
      if (o.code !== c.code) problems.push(`exit ${o.code}, expected ${c.code}`);
      if (c.line !== undefined && !new RegExp(`line ${c.line}\\b`).test(o.out)) problems.push(`does not name line ${c.line}`);
      if (!c.says.test(o.out)) problems.push(`does not say ${c.says}`);
      if (o.out.includes("Cannot read properties") || /\n\s{4}at /.test(o.out)) problems.push("prints a stack trace");
      if (problems.length > 0) failures.push(`${c.name} (${files[k]}): ${problems.join("; ")}\n${o.out.slice(0, 600)}`);
    });
    const slowest = Math.max(...outcomes.map((o) => o.ms));
    console.info(`${all.length} crafted files, slowest answer ${Math.round(slowest)} ms`);
    expect(failures).toEqual([]);
    // Every invalid file but the oversize one (refused unread, before any line) names a line.
    for (const [k, c] of all.entries()) {
      if (c.code === 2 && c.args === undefined) expect(outcomes[k].out).toMatch(/line \d+: /);
    }
    // About 40 s on two shared cores; the margin is for a machine busy with other work.
  }, 120_000);
});
