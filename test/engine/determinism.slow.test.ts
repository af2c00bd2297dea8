import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ENGINE_VERSION } from "../../shared/engine/index.ts";
import { builtin } from "./helpers.ts";
import { jointHashes, playgroundHashes, scriptedHashes } from "./scripted-run.ts";

function hashes(name: string, ticks: number): string[] {
  const { world } = builtin(name);
  const out = [world.stateHash()];
  for (let i = 0; i < ticks; i++) {
    world.step();
    out.push(world.stateHash());
  }
  return out;
}

/**
 * Golden hashes: bumping ENGINE_VERSION is required whenever these change (replays record the
 * engine version and would otherwise fail to verify).
 */
const GOLDEN = {
  heap1000_300: "312521620c865d40",
  bounce_240: "d29c7b1e57012990",
  scripted_480: "0eb7d87c65a0a850",
  /** Every shape (playground) with a capsule character, a thrown hull and a removed compound. */
  playground_480: "a1adad153a2aa2a8",
  /** Chain, ragdolls, cart and bridge side by side, with joints added and cut at run time (scripted-run.ts). */
  joints_480: "3004b0f532495dc5:860916975964ae2c:43e886402a229ada:30d442bfe80066d3",
};

describe("determinism", () => {
  it("the same scenario twice in one process gives identical hashes at every tick", () => {
    const a = hashes("heap1000", 240);
    const b = hashes("heap1000", 240);
    expect(b).toEqual(a);
    expect(new Set(a).size).toBeGreaterThan(200);
  });

  it("two processes agree with this one at every printed tick", () => {
    const run = () =>
      execFileSync(process.execPath, ["scripts/sim.ts", "heap1000", "--ticks", "240", "--every", "1"], {
        encoding: "utf8",
        maxBuffer: 1 << 30,
        stdio: ["ignore", "pipe", "ignore"],
      })
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).hash as string);
    const mine = hashes("heap1000", 240);
    expect(run()).toEqual(mine);
    expect(run()).toEqual(mine);
  });

  it("with sleeping, CCD, a character, impulses and removal: identical in this process and another", () => {
    const a = scriptedHashes(480);
    expect(scriptedHashes(480)).toEqual(a);
    const child = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", "import { scriptedHashes } from './test/engine/scripted-run.ts'; console.log(JSON.stringify(scriptedHashes(480)));"],
      { encoding: "utf8", maxBuffer: 1 << 28 },
    );
    expect(JSON.parse(child)).toEqual(a);
    expect(scriptedHashes(480)[480]).toBe(GOLDEN.scripted_480);
  });

  it("golden hashes are pinned to this engine version", () => {
    expect(ENGINE_VERSION).toBe("1.4.0");
    expect(hashes("heap1000", 300)[300]).toBe(GOLDEN.heap1000_300);
    expect(hashes("bounce", 240)[240]).toBe(GOLDEN.bounce_240);
  });

  it("the new shapes: identical in this process and another, and pinned", () => {
    const a = playgroundHashes(480);
    expect(new Set(a).size).toBeGreaterThan(400);
    const child = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", "import { playgroundHashes } from './test/engine/scripted-run.ts'; console.log(JSON.stringify(playgroundHashes(480)));"],
      { encoding: "utf8", maxBuffer: 1 << 28 },
    );
    expect(JSON.parse(child)).toEqual(a);
    expect(a[480]).toBe(GOLDEN.playground_480);
  });

  it("joints: identical in this process and another, and pinned", () => {
    const a = jointHashes(480);
    expect(new Set(a).size).toBeGreaterThan(400);
    const child = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", "import { jointHashes } from './test/engine/scripted-run.ts'; console.log(JSON.stringify(jointHashes(480)));"],
      { encoding: "utf8", maxBuffer: 1 << 28 },
    );
    expect(JSON.parse(child)).toEqual(a);
    expect(a[480]).toBe(GOLDEN.joints_480);
  });

  it("the engine uses only exactly-rounded math (no sin/cos/pow/exp/atan2/random/clock in the step)", () => {
    const root = "shared/engine";
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name.endsWith(".ts")) files.push(join(dir, e.name));
      }
    };
    walk(root);
    const forbidden =
      /Math\.(sin|cos|tan|asin|acos|atan|atan2|exp|expm1|log|log1p|log2|log10|pow|cbrt|hypot|sinh|cosh|tanh|random)\b|\*\*|Date\.now|performance\.now/;
    for (const f of files) {
      const code = readFileSync(f, "utf8")
        .split("\n")
        .filter((l) => !/^\s*(\/\/|\*|\/\*)/.test(l))
        .join("\n");
      // The profiler's clock lives in profile.ts and never feeds the simulation.
      if (f.endsWith("profile.ts")) continue;
      expect(code.match(forbidden)?.[0], f).toBeUndefined();
    }
    expect(files.length).toBeGreaterThan(10);
  });
});
