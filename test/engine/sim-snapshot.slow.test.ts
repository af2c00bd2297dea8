import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { encodeWorldSnapshot, World } from "../../shared/engine/index.ts";

/**
 * `npm run -s sim -- … --save-snapshot F` and `--from-snapshot F`: a run saved after tick N and continued
 * from the file prints exactly the lines the uninterrupted run prints after tick N (state lines and, with
 * --events, event lines); wrong arguments and bad files exit 2 with the reason. A process per run, hence
 * `.slow`.
 */
const ROOT = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "sim-snapshot-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sim(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["scripts/sim.ts", ...args], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function lines(stdout: string): string[] {
  return stdout.trimEnd().split("\n");
}

const tickOf = (line: string) => (JSON.parse(line) as { tick: number }).tick;

describe("sim --save-snapshot / --from-snapshot", () => {
  it("arena: 300 ticks saved, then 300 more from the file, prints the uninterrupted 600-tick run's lines from tick 300 on", () => {
    const file = join(dir, "a.snap");
    const first = sim(["arena", "--ticks", "300", "--save-snapshot", file]);
    expect(first.code, first.stderr).toBe(0);
    const continued = sim(["--from-snapshot", file, "--ticks", "300"]);
    expect(continued.code, continued.stderr).toBe(0);
    const whole = sim(["arena", "--ticks", "600"]);
    expect(whole.code, whole.stderr).toBe(0);

    const after = lines(continued.stdout);
    expect(after.map(tickOf)).toEqual([300, 360, 420, 480, 540, 600]);
    // The start line of the continued run is the saved run's last line.
    expect(after[0]).toBe(lines(first.stdout).at(-1));
    expect(after).toEqual(lines(whole.stdout).filter((l) => tickOf(l) >= 300));
    console.log(`arena saved at tick 300: ${readFileSync(file).length} bytes; ticks 300-600 identical (final hash ${JSON.parse(after[5]).hash})`);
  });

  it("chain, still swinging when saved: every 5th tick from the file is the uninterrupted run's", () => {
    const file = join(dir, "chain.snap");
    expect(sim(["chain", "--ticks", "100", "--every", "5", "--save-snapshot", file]).code).toBe(0);
    const continued = lines(sim(["--from-snapshot", file, "--ticks", "100", "--every", "5"]).stdout);
    const whole = lines(sim(["chain", "--ticks", "200", "--every", "5"]).stdout);
    expect(continued.map(tickOf)).toEqual(Array.from({ length: 21 }, (_, i) => 100 + 5 * i));
    expect((JSON.parse(continued[0]) as { awake: number }).awake).toBeGreaterThan(0);
    expect(continued).toEqual(whole.filter((l) => tickOf(l) >= 100));
  });

  it("with --events --every 1: the same event lines after the saved tick, a joint broken before it stays broken", () => {
    // Hung from the world: a ball on a weak joint (breaks on the first tick) and a plate on a strong one,
    // which breaks when the falling anvil lands on it, after the save (default density: 1 kg/m³).
    const scenario = {
      name: "break",
      world: { tickRate: 60 },
      bodies: [
        { id: "ground", type: "static", shape: { type: "box", halfExtents: [10, 0.5, 10] }, position: [0, -0.5, 0] },
        { id: "weak", type: "dynamic", shape: { type: "sphere", radius: 0.2 }, position: [-2, 3, 0] },
        { id: "strong", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.1, 0.5] }, position: [2, 3, 0] },
        { id: "anvil", type: "dynamic", shape: { type: "box", halfExtents: [0.4, 0.4, 0.4] }, position: [2, 8, 0], mass: 2 },
      ],
      joints: [
        { id: "weakJoint", type: "ball", bodyA: "weak", bodyB: null, anchor: [-2, 3.9, 0], breakForce: 0.1 },
        { id: "strongJoint", type: "ball", bodyA: "strong", bodyB: null, anchor: [2, 3.9, 0], breakForce: 5 },
      ],
    };
    const source = join(dir, "break.json");
    writeFileSync(source, JSON.stringify(scenario));
    const file = join(dir, "break.snap");
    const saved = 30;
    const ticks = 120;
    const first = sim([source, "--ticks", String(saved), "--every", "1", "--events", "--save-snapshot", file]);
    expect(first.code, first.stderr).toBe(0);
    const continued = sim(["--from-snapshot", file, "--ticks", String(ticks - saved), "--every", "1", "--events"]);
    expect(continued.code, continued.stderr).toBe(0);
    const whole = sim([source, "--ticks", String(ticks), "--every", "1", "--events"]);
    expect(whole.code, whole.stderr).toBe(0);

    const all = lines(whole.stdout);
    const breaks = all.filter((l) => l.includes('"jointBreak"')).map((l) => JSON.parse(l) as { tick: number; joint: string });
    console.log(`joint breaks: ${breaks.map((b) => `${b.joint} at tick ${b.tick}`).join(", ")}; saved at tick ${saved}`);
    expect(breaks.map((b) => b.joint)).toEqual(["weakJoint", "strongJoint"]);
    expect(breaks[0].tick).toBeLessThanOrEqual(saved);
    expect(breaks[1].tick).toBeGreaterThan(saved);

    // From the saved tick's state line on, the uninterrupted run's lines (events of later ticks included).
    const fromSaved = all.slice(all.findIndex((l) => !l.startsWith('{"event"') && tickOf(l) === saved));
    const out = lines(continued.stdout);
    expect(out.filter((l) => l.startsWith('{"event"')).length).toBeGreaterThan(0);
    expect(out).toEqual(fromSaved);
    expect(out.filter((l) => l.includes('"weakJoint"'))).toEqual([]);
  });

  it("a scenario and --from-snapshot, neither, or --set with it: a usage error, exit 2", () => {
    const file = join(dir, "usage.snap");
    expect(sim(["stack10", "--ticks", "1", "--save-snapshot", file]).code).toBe(0);
    const both = sim(["stack10", "--from-snapshot", file]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^--from-snapshot starts from the file's scenario: give it or a scenario \(stack10\), not both\nusage:/);
    const neither = sim(["--ticks", "5"]);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(/^missing scenario \(or --from-snapshot F\)\nusage:/);
    const withSet = sim(["--from-snapshot", file, "--set", "world.velocityIterations=1"]);
    expect(withSet.code).toBe(2);
    expect(withSet.stderr).toMatch(/^--set cannot change a run restored with --from-snapshot/);
    expect(sim(["stack10", "--save-snapshot"]).stderr).toMatch(/^--save-snapshot needs a file name\nusage:/);
    for (const r of [both, neither, withSet]) expect(r.stdout).toBe("");
  });

  it("a bad file: one line on stderr naming the problem, exit 2, nothing on stdout", () => {
    const good = join(dir, "good.snap");
    expect(sim(["stack10", "--ticks", "10", "--save-snapshot", good]).code).toBe(0);
    const bytes = readFileSync(good);
    const write = (name: string, data: Uint8Array | string): string => {
      const path = join(dir, name);
      writeFileSync(path, data);
      return path;
    };
    const flipped = Uint8Array.from(bytes);
    flipped[flipped.length - 5] ^= 1;
    const world = new World();
    const cases: [string, RegExp][] = [
      [join(dir, "missing.snap"), /^cannot read snapshot .*missing\.snap: ENOENT/],
      [write("text.snap", '{"tick":3}'), /^.*text\.snap: not a snapshot: it does not start with "PHYSNAP"$/],
      [write("cut.snap", bytes.subarray(0, bytes.length - 7)), /^.*cut\.snap: truncated snapshot: the header announces a \d+-byte payload, \d+ bytes follow it$/],
      [write("flipped.snap", flipped), /^.*flipped\.snap: snapshot checksum mismatch/],
      [write("world.snap", encodeWorldSnapshot(world.snapshot())), /^.*world\.snap: a "world" snapshot, expected a "simulator" snapshot$/],
    ];
    for (const [file, message] of cases) {
      const r = sim(["--from-snapshot", file, "--ticks", "5"]);
      expect(r.code, file).toBe(2);
      expect(r.stdout, file).toBe("");
      expect(r.stderr.trimEnd().split("\n"), file).toHaveLength(1);
      expect(r.stderr.trimEnd(), file).toMatch(message);
    }
  });
});
