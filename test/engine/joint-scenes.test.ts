import { describe, expect, it } from "vitest";
import type { QuatTuple, Vec3Tuple } from "../../shared/engine/types.ts";
import type { World } from "../../shared/engine/world/world.ts";
import { BRIDGE_PLANKS, CRATE_MASS } from "../../shared/scenarios/builtins/bridge.ts";
import { CART_START_X, RAMP_TOP } from "../../shared/scenarios/builtins/cart.ts";
import { CHAIN_LINKS, LINK_LENGTH, WALL_NEAR_FACE } from "../../shared/scenarios/builtins/chain.ts";
import { getBuiltinScenario, loadScenario, type Scenario } from "../../shared/scenarios/index.ts";

/**
 * The jointed built-ins do what their descriptions promise, run through the real engine at its defaults:
 * the bridge holds its crate, the wrecking ball's chain stays together and knocks the wall down, the
 * ragdolls come to rest and fall asleep, the cart drives up its ramp.
 */

function load(name: string) {
  const scenario = getBuiltinScenario(name) as Scenario;
  return { scenario, ...loadScenario(scenario) };
}

function rotate(q: QuatTuple, v: Vec3Tuple): Vec3Tuple {
  const [x, y, z, w] = q;
  const c1 = [y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0]];
  const c2 = [y * c1[2] - z * c1[1], z * c1[0] - x * c1[2], x * c1[1] - y * c1[0]];
  return [v[0] + 2 * (w * c1[0] + c2[0]), v[1] + 2 * (w * c1[1] + c2[1]), v[2] + 2 * (w * c1[2] + c2[2])];
}

/** World position of a point given in a body's reference frame. */
function worldPoint(world: World, id: string, local: Vec3Tuple): Vec3Tuple {
  const h = world.handleOf(id);
  const p = world.getPosition(h);
  const r = rotate(world.getRotation(h), local);
  return [p[0] + r[0], p[1] + r[1], p[2] + r[2]];
}

/**
 * The largest distance between a joint's two anchors, over every point joint (all but distance), and
 * the sum of those distances (how much a chain of them has stretched), metres.
 */
function largestJointGap(world: World): { gap: number; joint: string; total: number } {
  let worst = { gap: 0, joint: "", total: 0 };
  world.forEachJoint((j) => {
    if (j.type === "distance") return;
    const a = worldPoint(world, j.bodyA, j.localAnchorA);
    const b = j.bodyB === null ? j.localAnchorB : worldPoint(world, j.bodyB, j.localAnchorB);
    const gap = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
    worst.total += gap;
    if (gap > worst.gap) worst = { gap, joint: j.id, total: worst.total };
  });
  return worst;
}

/** Kinetic plus gravitational potential energy of the dynamic bodies (g = 9.81, masses from the scenario), J. */
function energy(world: World, scenario: Scenario): number {
  let potential = 0;
  for (const b of scenario.bodies) {
    if (b.type !== "dynamic") continue;
    const mass = b.mass ?? (b.shape.type === "box" ? 8 * b.shape.halfExtents[0] * b.shape.halfExtents[1] * b.shape.halfExtents[2] : Number.NaN);
    potential += mass * 9.81 * world.getPosition(world.handleOf(b.id))[1];
  }
  return world.kineticEnergy() + potential;
}

function allFinite(world: World, handles: number[]): boolean {
  return handles.every((h) => world.getPosition(h).every(Number.isFinite) && world.getLinearVelocity(h).every(Number.isFinite));
}

describe("bridge", () => {
  it("holds the dropped crate above its lowest plank, every hinge within 2 cm", () => {
    const { world, scenario } = load("bridge");
    expect(world.jointCount).toBe(BRIDGE_PLANKS + 1);
    const crate = world.handleOf("crate");
    let worstGap = { gap: 0, joint: "", tick: 0 };
    for (let t = 1; t <= 600; t++) {
      world.step();
      const g = largestJointGap(world);
      if (g.gap > worstGap.gap) worstGap = { ...g, tick: t };
    }
    const crateY = world.getPosition(crate)[1];
    let lowestPlank = Number.POSITIVE_INFINITY;
    for (let k = 0; k < BRIDGE_PLANKS; k++) lowestPlank = Math.min(lowestPlank, world.getPosition(world.handleOf(`plank${k}`))[1]);
    console.log(`bridge after 10 s: crate (${CRATE_MASS} kg) at y ${crateY.toFixed(3)}, lowest plank ${lowestPlank.toFixed(3)}; widest hinge gap ${(worstGap.gap * 1000).toFixed(1)} mm (${worstGap.joint}, tick ${worstGap.tick})`);
    // The crate rests on the planks: its centre half its height (plus the plank's half thickness) above them.
    expect(crateY).toBeGreaterThan(lowestPlank + 0.4);
    expect(crateY).toBeLessThan(lowestPlank + 0.7);
    expect(Math.abs(world.getPosition(crate)[0])).toBeLessThan(1);
    expect(worstGap.gap).toBeLessThan(0.02);
    expect(scenario.joints?.every((j) => j.type === "hinge")).toBe(true);
  });
});

describe("chain", () => {
  it("never explodes, keeps its links together and knocks boxes off the wall", () => {
    const { world, handles, scenario } = load("chain");
    const ball = world.handleOf("wrecking-ball");
    const walls = scenario.bodies.filter((b) => b.id.startsWith("wall"));
    let worstGap = { gap: 0, joint: "", tick: 0 };
    let stretch = 0;
    let fastest = 0;
    const startEnergy = energy(world, scenario);
    let mostEnergy = startEnergy;
    for (let t = 1; t <= 600; t++) {
      world.step();
      expect(allFinite(world, handles), `tick ${t}`).toBe(true);
      const g = largestJointGap(world);
      if (g.gap > worstGap.gap) worstGap = { ...g, tick: t };
      stretch = Math.max(stretch, g.total);
      fastest = Math.max(fastest, Math.hypot(...world.getLinearVelocity(ball)));
      mostEnergy = Math.max(mostEnergy, energy(world, scenario));
    }
    const knocked = walls.filter((b) => {
      const p = world.getPosition(world.handleOf(b.id));
      return Math.hypot(p[0] - b.position[0], p[1] - b.position[1], p[2] - b.position[2]) > 1;
    });
    console.log(`chain over 10 s: energy ${startEnergy.toFixed(1)} J at the start, at most ${mostEnergy.toFixed(1)} J; ball's top speed ${fastest.toFixed(2)} m/s, widest link gap ${(worstGap.gap * 1000).toFixed(1)} mm (${worstGap.joint}, tick ${worstGap.tick}), all gaps at most ${(stretch * 1000).toFixed(1)} mm together, ${knocked.length} of ${walls.length} wall boxes moved > 1 m`);
    // Exploding joints add energy; a real chain only loses it (to the joints' damping and the impacts).
    expect(mostEnergy).toBeLessThan(startEnergy + 0.01 * Math.abs(startEnergy));
    // No joint opens by more than 1 cm, and the whole chain (all its gaps together) never stretches by
    // more than 2 % of its length, even at the bottom of the swing with the ball pulling at 2.5 g (the
    // 1 % at rest of the issue is the bench's figure).
    expect(worstGap.gap).toBeLessThan(0.01);
    expect(stretch).toBeLessThan(0.02 * LINK_LENGTH * CHAIN_LINKS);
    expect(knocked.length).toBeGreaterThanOrEqual(4);
    // Knocked away from the ball, not through it.
    for (const b of knocked) expect(world.getPosition(world.handleOf(b.id))[0]).toBeGreaterThan(WALL_NEAR_FACE);
  });
});

describe("ragdolls", () => {
  it("come to rest on the stairs and fall asleep within 15 s, every joint together", () => {
    const { world, handles, scenario } = load("ragdolls");
    const dynamic = handles.filter((_, i) => scenario.bodies[i].type === "dynamic");
    expect(dynamic).toHaveLength(100);
    let asleepAt = -1;
    let worstGap = { gap: 0, joint: "", tick: 0 };
    for (let t = 1; t <= 900 && asleepAt < 0; t++) {
      world.step();
      const g = largestJointGap(world);
      if (g.gap > worstGap.gap) worstGap = { ...g, tick: t };
      if (dynamic.every((h) => world.isSleeping(h))) asleepAt = t;
    }
    const restingGap = largestJointGap(world);
    const lowest = Math.min(...dynamic.map((h) => world.getPosition(h)[1]));
    console.log(`ragdolls: all 100 parts asleep at tick ${asleepAt}; widest joint gap ${(worstGap.gap * 1000).toFixed(1)} mm (${worstGap.joint}, tick ${worstGap.tick}), at rest ${(restingGap.gap * 1000).toFixed(1)} mm; lowest part at y ${lowest.toFixed(2)}`);
    expect(asleepAt).toBeGreaterThan(0);
    expect(allFinite(world, handles)).toBe(true);
    expect(lowest).toBeGreaterThan(0);
    // Landing from 2 m stretches a joint for a tick or two; at rest they are closed.
    expect(worstGap.gap).toBeLessThan(0.1);
    expect(restingGap.gap).toBeLessThan(0.01);
  });
});

describe("cart", () => {
  it("drives up the ramp onto the plateau", () => {
    const { world } = load("cart");
    const chassis = world.handleOf("chassis");
    const start = world.getPosition(chassis);
    let highest = start[1];
    for (let t = 1; t <= 720; t++) {
      world.step();
      highest = Math.max(highest, world.getPosition(chassis)[1]);
    }
    const end = world.getPosition(chassis);
    console.log(`cart after 12 s: chassis from x ${start[0]} y ${start[1]} to x ${end[0].toFixed(2)} y ${end[1].toFixed(3)} (z ${end[2].toFixed(2)}), highest ${highest.toFixed(3)}`);
    expect(start[0]).toBe(CART_START_X);
    // Up on the plateau (its top at RAMP_TOP), past the ramp's crest, still upright.
    expect(end[1]).toBeGreaterThan(RAMP_TOP + 0.2);
    expect(end[0]).toBeGreaterThan(10);
    expect(Math.abs(end[2])).toBeLessThan(1.5);
    const up = rotate(world.getRotation(chassis), [0, 1, 0]);
    expect(up[1]).toBeGreaterThan(0.9);
  });
});
