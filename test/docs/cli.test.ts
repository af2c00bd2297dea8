import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadScenario, validateScenario } from "../../shared/scenarios/index.ts";
import { REPO } from "./readme.ts";

/**
 * The simulator and replay CLIs as documented: `--help` answers with the usage (stdout, exit 0), `npm run
 * -s sim` gives NDJSON and nothing else, and a reader that stops early (`| head`) ends them quietly with
 * exit 0 (no EPIPE stack trace). Plus the README's example scenario, through the real validator.
 */
interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Spawns `npm run -s <args>`; with `closeAfter`, destroys the read end of stdout after that many bytes. */
function npm(args: string[], closeAfter?: number): Promise<Run> {
  const child = spawn("npm", ["run", "-s", ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
    if (closeAfter !== undefined && stdout.length >= closeAfter) child.stdout.destroy();
  });
  if (closeAfter === 0) child.stdout.destroy();
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("npm run sim", () => {
  it("--help prints the usage on stdout and exits 0", async () => {
    const r = await npm(["sim", "--", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith("usage: npm run -s sim -- <file.json | builtin>")).toBe(true);
    expect(r.stdout).toContain("built-ins: ");
    expect(r.stderr).toBe("");
  });

  it("an unknown option is a usage error: exit 2, the reason and the usage on stderr", async () => {
    const r = await npm(["sim", "--", "stack10", "--tick", "5"]);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith("unknown option --tick\nusage:")).toBe(true);
    expect(r.stdout).toBe("");
  });

  it("with -s, stdout is NDJSON only: no npm banner", async () => {
    const r = await npm(["sim", "--", "stack10", "--ticks", "120", "--every", "60"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as { tick: number }).tick)).toEqual([0, 60, 120]);
  });

  it("a reader that closes early ends it quietly with exit 0", async () => {
    const r = await npm(["sim", "--", "stack10", "--ticks", "100000", "--every", "1"], 4096);
    console.log(`sim | reader closing after 4096 bytes: exit ${r.code}, read ${r.stdout.length} bytes, stderr ${JSON.stringify(r.stderr.slice(0, 200))}`);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
  });
});

describe("npm run replay", () => {
  it("--help prints the usage on stdout and exits 0", async () => {
    const r = await npm(["replay", "--", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith("usage: npm run replay -- verify <file>")).toBe(true);
    expect(r.stderr).toBe("");
  });

  it("a usage error names the problem, exit 2", async () => {
    const r = await npm(["replay", "--", "check", "x.ndjson"]);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith("unknown command check\nusage:")).toBe(true);
  });

  it("a reader that is already gone ends it quietly with exit 0", async () => {
    const r = await npm(["replay", "--", "--help"], 0);
    console.log(`replay --help into a closed pipe: exit ${r.code}, stderr ${JSON.stringify(r.stderr.slice(0, 200))}`);
    expect(r.code).toBe(0);
    expect(r.stderr).not.toMatch(/EPIPE|Error|at /);
  });
});

describe("the README's example scenario", () => {
  const readme = readFileSync(join(REPO, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("#### Scenario format"));
  const block = /```json\n([\s\S]*?)\n```/.exec(section);

  it("is docs/scenario-example.json, passes the real validator and simulates", () => {
    expect(block, "README.md has a ```json example under Scenario format").not.toBeNull();
    const shown = JSON.parse((block as RegExpExecArray)[1]) as Record<string, unknown>;
    expect(shown).toEqual(JSON.parse(readFileSync(join(REPO, "docs", "scenario-example.json"), "utf8")));
    const checked = validateScenario(shown);
    expect(checked.ok ? [] : checked.issues).toEqual([]);
    if (!checked.ok) return;
    const { world, handles } = loadScenario(checked.scenario);
    const e0 = world.kineticEnergy();
    for (let t = 0; t < 60; t++) world.step();
    const ids = checked.scenario.bodies.map((b) => b.id);
    const ball = world.getPosition(handles[ids.indexOf("ball")]);
    const gate = checked.scenario.bodies[ids.indexOf("gate")].position;
    console.log(`example: ${handles.length} bodies, kinetic energy ${e0.toFixed(3)} J → ${world.kineticEnergy().toFixed(3)} J after 60 ticks; ball at x ${ball[0].toFixed(3)} (gate at ${gate[0]})`);
    expect(handles.every((h) => world.has(h))).toBe(true);
    expect(Number.isFinite(world.kineticEnergy())).toBe(true);
    // The sensor gate does not stop the ball: after a second it has rolled through (0.2 m gate, 0.25 m ball).
    expect(ball[0]).toBeGreaterThan(gate[0] + 0.45);
  });

  it("explains every field it uses", () => {
    const shown = JSON.parse((block as RegExpExecArray)[1]) as Record<string, unknown>;
    const keys = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v !== null && typeof v === "object")
        for (const [k, x] of Object.entries(v)) {
          keys.add(k);
          walk(x);
        }
    };
    walk(shown);
    const prose = section.slice(section.indexOf("```", (block as RegExpExecArray).index + 10));
    const unexplained = [...keys].filter((k) => !prose.includes(`\`${k}\``));
    expect(unexplained, `fields of the example the prose does not name: ${unexplained.join(", ")}`).toEqual([]);
  });
});
