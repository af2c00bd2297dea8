import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/** The simulator CLI on scenario files with joints: a bad joint is a usage error naming its field. */

const REPO = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "joints-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sim(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn("npm", ["run", "-s", "sim", "--", ...args], { cwd: REPO, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

function scenarioFile(name: string, joints: unknown[]): string {
  const file = join(dir, `${name}.json`);
  const scenario = {
    name,
    bodies: [
      { id: "post", type: "static", shape: { type: "box", halfExtents: [0.1, 1, 0.1] }, position: [0, 1, 0] },
      { id: "bob", type: "dynamic", shape: { type: "sphere", radius: 0.2 }, position: [1, 2, 0] },
    ],
    joints,
  };
  writeFileSync(file, JSON.stringify(scenario));
  return file;
}

describe("npm run sim with joints", () => {
  it("a joint naming a missing body: exit 2, its path on stderr, nothing on stdout", async () => {
    const file = scenarioFile("bad-joint", [
      { id: "hook", type: "ball", bodyA: "bob", bodyB: "post", anchor: [0, 2, 0] },
      { id: "rope", type: "distance", bodyA: "bob", bodyB: "hook", anchor: [1, 2, 0], limits: [0, 1] },
    ]);
    const r = await sim([file, "--ticks", "10"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('joints[1].bodyB: no body "hook"');
    expect(r.stdout).toBe("");
  });

  it("a zero axis and inverted limits: exit 2, both named", async () => {
    const file = scenarioFile("bad-hinge", [{ id: "h", type: "hinge", bodyA: "bob", bodyB: null, anchor: [0, 2, 0], axis: [0, 0, 0], limits: [1, -1] }]);
    const r = await sim([file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("joints[0].axis: must not be a zero vector");
    expect(r.stderr).toContain("joints[0].limits: lower limit 1 is above upper limit -1");
  });

  it("the same scene with a valid joint runs: the bob swings on its 1 m rope and never leaves it", async () => {
    const file = scenarioFile("good-joint", [{ id: "hook", type: "ball", bodyA: "bob", bodyB: "post", anchor: [0, 2, 0] }]);
    const r = await sim([file, "--ticks", "120", "--every", "30"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as { tick: number; bodies: { id: string; position: number[] }[] });
    expect(lines.map((l) => l.tick)).toEqual([0, 30, 60, 90, 120]);
    for (const line of lines) {
      const bob = line.bodies.find((b) => b.id === "bob");
      if (!bob) throw new Error("no bob");
      const [x, y, z] = bob.position;
      expect(Math.hypot(x, y - 2, z)).toBeCloseTo(1, 2);
    }
    // It swung: at 0.5 s it is well below its start height.
    expect(lines[1].bodies.find((b) => b.id === "bob")?.position[1]).toBeLessThan(1.5);
  });
});
