import { describe, expect, it } from "vitest";
import type { Vec3Tuple } from "../../shared/engine/index.ts";
import { builtinNames, getBuiltinScenario, type Scenario } from "../../shared/scenarios/index.ts";
import { AVATAR, RoomSim } from "../../shared/sim/index.ts";

/** Where an avatar's centre is when it stands on the plane y = top. */
const standing = (top: number) => top + AVATAR.halfExtents[1] + AVATAR.spawnClearance;

const flat: Scenario = {
  name: "flat",
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [50, 0.5, 50] }, position: [0, -0.5, 0] },
    { id: "crate", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [3, 0.5, 0] },
  ],
};

/** A room of `scenario` with one player joined on the first tick: the avatar's centre after it. */
function joinOne(scenario: Scenario): { sim: RoomSim; at: Vec3Tuple } {
  const sim = new RoomSim(structuredClone(scenario));
  sim.enqueue({ type: "join", session: "p" });
  sim.step();
  return { sim, at: sim.world.getPosition(sim.avatars[0].handle) };
}

/** True if the avatar's footprint (x, z) misses the box [-half, half]² around the origin. */
const outsideSquare = (at: Vec3Tuple, half: number) => Math.max(Math.abs(at[0]), Math.abs(at[2])) - AVATAR.halfExtents[0] >= half;

describe("avatar spawn: the scenario's spawn point", () => {
  it("stands the avatar on the static surface below the spawn point", () => {
    const { at } = joinOne({ ...flat, spawn: [5, 2, -4] });
    console.log(`spawn [5, 2, -4] → ${at.map((v) => v.toFixed(3)).join(", ")}`);
    expect(at[0]).toBe(5);
    expect(at[2]).toBe(-4);
    // One tick of gravity after the spawn at most (the controller steps the avatar before it lands).
    expect(at[1]).toBeCloseTo(standing(0), 1);
  });

  it("over a body, takes the nearest free grid spot around the spawn point", () => {
    const { at } = joinOne({ ...flat, spawn: [3, 2, 0] });
    const d = Math.hypot(at[0] - 3, at[2]);
    console.log(`spawn on the crate → ${at.map((v) => v.toFixed(3)).join(", ")} (${d.toFixed(2)} m away)`);
    expect(d).toBeGreaterThanOrEqual(1);
    expect(d).toBeLessThanOrEqual(Math.SQRT2 + 1e-9);
    expect(at[1]).toBeCloseTo(standing(0), 1);
  });

  it("with nothing static below, puts the avatar at the spawn point itself (no fall from 100 m)", () => {
    const floating: Scenario = {
      name: "floating",
      world: { gravity: [0, 0, 0] },
      bodies: [{ id: "a", type: "dynamic", shape: { type: "sphere", radius: 1 }, position: [0, 0, 0] }],
      spawn: [0, 0, 5],
    };
    const { at } = joinOne(floating);
    expect(at).toEqual([0, 0, 5]);
  });
});

describe("avatar spawn: without a spawn point, where the action is", () => {
  it("pile1000: just outside the pile's footprint, on the ground", () => {
    const { spawn: _s, camera: _c, ...pile } = getBuiltinScenario("pile1000")!;
    const { at } = joinOne(pile);
    console.log(`pile1000 without its spawn → ${at.map((v) => v.toFixed(3)).join(", ")}`);
    // The boxes (1 m, 1.5 m apart, turned about y by up to 45°) reach 6.75 + 0.71 m from the middle.
    expect(outsideSquare(at, 7.46)).toBe(true);
    expect(Math.max(Math.abs(at[0]), Math.abs(at[2]))).toBeLessThan(10);
    expect(at[1]).toBeCloseTo(standing(0), 1);
  });

  it("fiedler-cubes: at the field's edge, not 100 m up or in the middle of the cubes", () => {
    const { spawn: _s, camera: _c, ...cubes } = getBuiltinScenario("fiedler-cubes")!;
    const { at } = joinOne(cubes);
    console.log(`fiedler-cubes without its spawn → ${at.map((v) => v.toFixed(3)).join(", ")}`);
    expect(outsideSquare(at, 22.25)).toBe(true);
    expect(Math.max(Math.abs(at[0]), Math.abs(at[2]))).toBeLessThan(25);
    expect(at[1]).toBeCloseTo(standing(0), 1);
  });

  it("a scene without static ground: beside the bodies at their height", () => {
    const { spawn: _s, camera: _c, ...lab } = getBuiltinScenario("positional-correction")!;
    const { sim, at } = joinOne(lab);
    console.log(`positional-correction without its spawn → ${at.map((v) => v.toFixed(3)).join(", ")}`);
    expect(at[1]).toBe(0);
    expect(Math.hypot(at[0] - 0.75, at[2])).toBeLessThan(4);
    // Not inside either sphere (radius 1 at x = 0 and x = 1.5) nor touching them.
    for (const id of ["a", "b"]) {
      const p = sim.world.getPosition(sim.world.handleOf(id));
      const dx = Math.max(0, Math.abs(at[0] - p[0]) - AVATAR.halfExtents[0]);
      const dz = Math.max(0, Math.abs(at[2] - p[2]) - AVATAR.halfExtents[2]);
      expect(Math.hypot(dx, dz), id).toBeGreaterThan(1);
    }
  });
});

describe("avatar spawn: the built-ins", () => {
  it("failure-lab: on the platform beside the line of fire, which the platform stays clear of", () => {
    const lab = getBuiltinScenario("failure-lab")!;
    const { sim, at } = joinOne(lab);
    const platform = sim.world.getAabb(sim.world.handleOf("platform"));
    console.log(`failure-lab → ${at.map((v) => v.toFixed(3)).join(", ")}; platform z ${platform.min[2]}..${platform.max[2]}`);
    expect(at[1]).toBeCloseTo(standing(0), 6); // zero gravity: it stays where it was put
    expect(at[0]).toBeGreaterThan(platform.min[0]);
    expect(at[0]).toBeLessThan(platform.max[0]);
    expect(at[2]).toBeGreaterThan(platform.min[2]);
    expect(at[2]).toBeLessThan(platform.max[2]);
    // The bullet (radius 0.1) flies along y = 1, z = 0: the platform is 2.5 m to its side and below it.
    expect(platform.min[2]).toBeGreaterThan(2);
  });

  it("every built-in puts two players on their feet or at their spawn point, apart, within 20 m of it", () => {
    for (const [name, scenario] of Object.entries(builtinScenarios())) {
      const sim = new RoomSim(structuredClone(scenario));
      sim.enqueue({ type: "join", session: "a" });
      sim.enqueue({ type: "join", session: "b" });
      sim.step();
      const [a, b] = sim.avatars.map((v) => sim.world.getPosition(v.handle));
      const s = scenario.spawn!;
      expect(s, name).toBeDefined();
      expect(Math.hypot(a[0] - s[0], a[2] - s[2]), name).toBeLessThan(20);
      expect(Math.abs(a[1] - s[1]), name).toBeLessThan(2);
      expect(Math.hypot(a[0] - b[0], a[2] - b[2]), name).toBeGreaterThan(0.8);
    }
  });
});

function builtinScenarios(): Record<string, Scenario> {
  return Object.fromEntries(builtinNames().map((n) => [n, getBuiltinScenario(n)!]));
}
