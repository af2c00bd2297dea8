import { describe, expect, it } from "vitest";
import { CannonEngine } from "../../bench/adapters/cannon.ts";
import { unsupportedJoints } from "../../bench/adapters/index.ts";
import { anchorGap, cross, dot, inverseRotate, length, localJoints, normalize, quatConj, quatMul, sub } from "../../bench/adapters/joints.ts";
import { RAPIER_COMPAT, RAPIER_SIMD_COMPAT, RapierEngine } from "../../bench/adapters/rapier.ts";
import type { BenchEngine } from "../../bench/adapters/types.ts";
import type { BodyDef, JointDef, QuatTuple, Vec3Tuple } from "../../shared/engine/types.ts";
import type { Scenario } from "../../shared/scenarios/format.ts";

/**
 * The benchmark's Rapier (and cannon-es) side of joints: that each scenario joint type, translated by the
 * bench adapters from world-space anchors and axes at creation into body frames, behaves as the JointDef
 * says. Bodies are placed at awkward rotations on purpose: a wrong local anchor makes a body jump at the
 * first step, a wrong local frame starts a hinge at a non-zero angle or twists a slider.
 */

type JointScenario = Scenario & { joints: JointDef[] };

const DT = 1 / 60;
/** Both Rapier builds, through the one adapter (the same translation). */
const BUILDS: { name: string; make: () => BenchEngine }[] = [
  { name: RAPIER_COMPAT.name, make: () => new RapierEngine(RAPIER_COMPAT) },
  { name: RAPIER_SIMD_COMPAT.name, make: () => new RapierEngine(RAPIER_SIMD_COMPAT) },
];

/** Unit quaternion of `angle` radians about `axis` (test setup only). */
function axisAngle(axis: Vec3Tuple, angle: number): QuatTuple {
  const n = normalize(axis);
  const s = Math.sin(angle / 2);
  return [n[0] * s, n[1] * s, n[2] * s, Math.cos(angle / 2)];
}

/** The signed turn, rad, taking rotation q0 to q1, about the world axis `axis` (unit), for small relative twists off it. */
function turnAbout(q0: QuatTuple, q1: QuatTuple, axis: Vec3Tuple): number {
  const r = quatMul(q1, quatConj(q0));
  return 2 * Math.atan2(dot([r[0], r[1], r[2]], axis), r[3]);
}

const box = (id: string, half: Vec3Tuple, position: Vec3Tuple, extra: Partial<BodyDef> = {}): BodyDef => ({
  id,
  type: "dynamic",
  shape: { type: "box", halfExtents: half },
  position,
  ...extra,
});

async function loaded(engine: BenchEngine, scenario: JointScenario): Promise<BenchEngine> {
  await engine.load(scenario, { sleep: false });
  return engine;
}

describe.each(BUILDS.map((b) => [b.name, b] as const))("%s: scenario joints in the bench adapter", (_name, build) => {
  it("ball: a rotated box on a far anchor neither jumps nor changes its pendulum length while it swings", async () => {
    const rotation = axisAngle([1, 2, 3], 1.1);
    // The anchor is a world point 2 m to the side of the box: its local anchor lies far outside the box,
    // in the rotated frame. The pendulum starts horizontal.
    const position: Vec3Tuple = [2, 5, 0];
    const scenario: JointScenario = {
      name: "pendulum",
      bodies: [box("bob", [0.2, 0.1, 0.3], position, { rotation, mass: 1 })],
      joints: [{ id: "j", type: "ball", bodyA: "bob", bodyB: null, anchor: [0, 5, 0] }],
    };
    const [j] = localJoints(scenario);
    const engine = await loaded(build.make(), scenario);
    const reach = length(sub(position, j.def.anchor));
    let lowest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 240; i++) {
      engine.step();
      if (i === 0) expect(length(sub(engine.position("bob"), position))).toBeLessThan(0.01);
      expect(anchorGap(engine, j), `step ${i}`).toBeLessThan(0.01 * reach);
      lowest = Math.min(lowest, engine.position("bob")[1]);
    }
    // It did swing through the bottom (the centre hangs about `reach` below the anchor there).
    expect(lowest).toBeLessThan(j.def.anchor[1] - 0.8 * reach);
    engine.dispose();
  });

  it("hinge: keeps its tilted axis with both bodies rotated differently, and starts at angle 0 inside tight limits", async () => {
    const axis = normalize([0, 1, 0]);
    const post = axisAngle([1, 0, 0], 0.3);
    const door = axisAngle([0, 1, 0], 0.5);
    const scenario: JointScenario = {
      name: "hinge-frames",
      world: { gravity: [0, -9.81, 0] },
      bodies: [
        { id: "post", type: "static", shape: { type: "box", halfExtents: [0.1, 1, 0.1] }, position: [0, 1, 0], rotation: post },
        box("door", [0.5, 1, 0.05], [0.6, 1, 0], { rotation: door }),
      ],
      // Limits of +-0.05 rad round the creation pose: any frame mismatch larger than that snaps the door.
      joints: [{ id: "h", type: "hinge", bodyA: "post", bodyB: "door", anchor: [0, 1, 0], axis, limits: [-0.05, 0.05] }],
    };
    const engine = await loaded(build.make(), scenario);
    for (let i = 0; i < 60; i++) engine.step();
    expect(Math.abs(turnAbout(door, engine.rotation("door"), axis))).toBeLessThan(1e-3);
    expect(length(sub(engine.position("door"), [0.6, 1, 0]))).toBeLessThan(1e-3);
    engine.dispose();
  });

  it("hinge: a door spun both ways stops at each limit, B's turn about the axis being the angle", async () => {
    const axis: Vec3Tuple = [0, 1, 0];
    for (const spin of [-4, 4]) {
      const scenario: JointScenario = {
        name: "door",
        bodies: [
          { id: "post", type: "static", shape: { type: "box", halfExtents: [0.1, 1, 0.1] }, position: [0, 1, 0] },
          box("door", [0.5, 1, 0.05], [0.6, 1, 0], { angularVelocity: [0, spin, 0], linearVelocity: [0, 0, -0.6 * spin] }),
        ],
        joints: [{ id: "h", type: "hinge", bodyA: "post", bodyB: "door", anchor: [0, 1, 0], axis, limits: [-Math.PI / 2, 0.5] }],
      };
      const engine = await loaded(build.make(), scenario);
      let lo = 0;
      let hi = 0;
      for (let i = 0; i < 120; i++) {
        engine.step();
        const angle = turnAbout([0, 0, 0, 1], engine.rotation("door"), axis);
        lo = Math.min(lo, angle);
        hi = Math.max(hi, angle);
      }
      const limit = spin < 0 ? -Math.PI / 2 : 0.5;
      const reached = spin < 0 ? lo : hi;
      expect(Math.abs(reached - limit), `spin ${spin}: reached ${reached}`).toBeLessThan((3 * Math.PI) / 180);
      engine.dispose();
    }
  });

  it("hinge motor: spins at its target with torque to spare, and accelerates as tau = I alpha with too little", async () => {
    const axis = normalize([0, 1, 1]);
    // A box wheel of mass 2, half extents 0.5 x 0.5 x 0.5 about any axis through its centre: I = m (2 h^2) / 3.
    const inertia = (2 * (0.5 * 0.5 + 0.5 * 0.5)) / 3;
    for (const { maxForce, expected } of [
      { maxForce: 1000, expected: 2 },
      { maxForce: 0.5, expected: (0.5 / inertia) * 1 },
    ]) {
      const scenario: JointScenario = {
        name: "motor",
        world: { gravity: [0, 0, 0] },
        bodies: [
          { id: "axle", type: "static", shape: { type: "sphere", radius: 0.05 }, position: [0, 3, 0] },
          box("wheel", [0.5, 0.5, 0.5], [0, 3, 0], { mass: 2 }),
        ],
        joints: [{ id: "m", type: "hinge", bodyA: "axle", bodyB: "wheel", anchor: [0, 3, 0], axis, motor: { targetVelocity: 2, maxForce } }],
      };
      const engine = await loaded(build.make(), scenario);
      let previous = engine.rotation("wheel");
      let rate = 0;
      for (let i = 0; i < 60; i++) {
        engine.step();
        const now = engine.rotation("wheel");
        rate = turnAbout(previous, now, axis) / DT;
        previous = now;
      }
      // One step's rate at t = 1 s; with 0.5 N·m the motor is still accelerating at 1.5 rad/s^2 (Rapier
      // reaches 1.4907: within 1%; a maxForce read as an impulse or per substep would be off by 60x or 4x).
      expect(Math.abs(rate / expected - 1), `maxForce ${maxForce}: ${rate} rad/s`).toBeLessThan(maxForce > 1 ? 0.005 : 0.01);
      engine.dispose();
    }
  });

  it("slider: moves B only along the axis, without turning, stops at its limit, and its motor drives at the target", async () => {
    const axis = normalize([1, -1, 0]);
    const rotation = axisAngle([0, 0, 1], 0.4);
    const start: Vec3Tuple = [0, 5, 0];
    const scenario: JointScenario = {
      name: "slider",
      bodies: [box("slide", [0.2, 0.2, 0.2], start, { rotation })],
      joints: [{ id: "s", type: "slider", bodyA: "slide", bodyB: null, anchor: start, axis, limits: [-0.5, 1] }],
    };
    const engine = await loaded(build.make(), scenario);
    let travel = 0;
    for (let i = 0; i < 120; i++) {
      engine.step();
      const d = sub(engine.position("slide"), start);
      // A is the slide, B the world: B's travel along the axis is minus the slide's.
      travel = -dot(d, axis);
      expect(length(cross(d, axis)), `off the axis at step ${i}`).toBeLessThan(1e-3);
      expect(Math.abs(turnAbout(rotation, engine.rotation("slide"), [0, 0, 1]))).toBeLessThan(1e-3);
    }
    expect(travel).toBeCloseTo(-0.5, 2);
    engine.dispose();

    const motorised: JointScenario = {
      ...scenario,
      world: { gravity: [0, 0, 0] },
      joints: [{ id: "s", type: "slider", bodyA: "slide", bodyB: null, anchor: start, axis, motor: { targetVelocity: -0.5, maxForce: 100 } }],
    };
    const driven = await loaded(build.make(), motorised);
    for (let i = 0; i < 60; i++) driven.step();
    const p0 = driven.position("slide");
    driven.step();
    // B (the world) at -0.5 m/s relative to A: the slide moves at +0.5 m/s along the axis.
    expect(dot(sub(driven.position("slide"), p0), axis) / DT).toBeCloseTo(0.5, 3);
    driven.dispose();
  });

  it("fixed: two boxes welded at different rotations tumble as one body", async () => {
    const qa = axisAngle([1, 1, 0], 0.7);
    const qb = axisAngle([0, 0, 1], -0.4);
    const scenario: JointScenario = {
      name: "weld",
      world: { gravity: [0, 0, 0] },
      bodies: [
        box("a", [0.5, 0.2, 0.3], [0, 2, 0], { rotation: qa, angularVelocity: [3, 1, -2] }),
        box("b", [0.3, 0.3, 0.3], [1.1, 2.2, 0.1], { rotation: qb }),
      ],
      joints: [{ id: "w", type: "fixed", bodyA: "a", bodyB: "b", anchor: [0.6, 2.1, 0] }],
    };
    const engine = await loaded(build.make(), scenario);
    const relative = () => {
      const q = engine.rotation("a");
      return { p: inverseRotate(q, sub(engine.position("b"), engine.position("a"))), q: quatMul(quatConj(q), engine.rotation("b")) };
    };
    const initial = { p: inverseRotate(qa, sub([1.1, 2.2, 0.1], [0, 2, 0])), q: quatMul(quatConj(qa), qb) };
    for (let i = 0; i < 300; i++) engine.step();
    const now = relative();
    expect(length(sub(now.p, initial.p))).toBeLessThan(1e-3);
    expect(Math.abs(dot([now.q[0], now.q[1], now.q[2]], [initial.q[0], initial.q[1], initial.q[2]]) + now.q[3] * initial.q[3])).toBeGreaterThan(1 - 1e-6);
    // And it did tumble.
    expect(Math.abs(turnAbout(qa, engine.rotation("a"), normalize([3, 1, -2])))).toBeGreaterThan(0.1);
    engine.dispose();
  });

  it("distance: a rope is slack below L and taut at L, a spring sags by g / omega^2, a rod is refused", async () => {
    const anchor: Vec3Tuple = [0, 10, 0];
    const ball = (position: Vec3Tuple, v: Vec3Tuple = [0, 0, 0]): BodyDef => ({
      id: "ball",
      type: "dynamic",
      shape: { type: "sphere", radius: 0.1 },
      position,
      linearVelocity: v,
      mass: 1,
    });
    const run = async (joint: Omit<JointDef, "id" | "bodyA" | "bodyB" | "type">, body: BodyDef, steps: number) => {
      const scenario: JointScenario = {
        name: "distance",
        bodies: [body],
        joints: [{ id: "d", type: "distance", bodyA: "ball", bodyB: null, ...joint }],
      };
      const engine = await loaded(build.make(), scenario);
      const lengths: number[] = [];
      for (let i = 0; i < steps; i++) {
        engine.step();
        lengths.push(length(sub(engine.position("ball"), anchor)));
      }
      engine.dispose();
      return lengths;
    };
    // Rope of 2 m, ball starting 1 m below the anchor: free fall for 1 m, then held at 2 m.
    const rope = await run({ anchor: [0, 9, 0], anchorB: anchor, limits: [0, 2] }, ball([0, 9, 0]), 120);
    expect(rope[10]).toBeCloseTo(1 + 0.5 * 9.81 * (11 * DT) ** 2, 2);
    expect(Math.max(...rope)).toBeLessThan(2.02);
    expect(rope[119]).toBeGreaterThan(1.98);
    // Rapier's rope holds only the maximum (a rod thrown inwards would fold): the adapter refuses it.
    await expect(run({ anchor: [2, 10, 0], anchorB: anchor, limits: [2, 2] }, ball([2, 10, 0], [-3, 2, 1]), 1)).rejects.toThrow(
      "distance lower limits",
    );
    // Critically damped 2 Hz spring of rest length 2 hanging straight down: settles g / omega^2 longer.
    const omega = 2 * Math.PI * 2;
    const spring = await run(
      { anchor: [0, 8, 0], anchorB: anchor, limits: [2, 2], spring: { frequency: 2, dampingRatio: 1 } },
      ball([0, 8, 0]),
      300,
    );
    expect(spring[299]).toBeCloseTo(2 + 9.81 / (omega * omega), 3);
  });

  it("collideConnected: overlapping welded boxes stay put without contacts between them, and are pushed with them", async () => {
    for (const collideConnected of [false, true]) {
      const scenario: JointScenario = {
        name: "overlap",
        world: { gravity: [0, 0, 0] },
        bodies: [box("a", [0.5, 0.5, 0.5], [0, 2, 0]), box("b", [0.5, 0.5, 0.5], [0.6, 2.3, 0])],
        joints: [{ id: "w", type: "ball", bodyA: "a", bodyB: "b", anchor: [0.3, 2.15, 0], collideConnected }],
      };
      const engine = await loaded(build.make(), scenario);
      for (let i = 0; i < 60; i++) engine.step();
      const moved = length(sub(engine.position("b"), [0.6, 2.3, 0])) + length(sub(engine.position("a"), [0, 2, 0]));
      if (collideConnected) expect(moved).toBeGreaterThan(0.01);
      else expect(moved).toBeLessThan(1e-4);
      engine.dispose();
    }
  });
});

describe("cannon-es joints in the bench adapter", () => {
  it("ball and hinge motor: the pivots start together, the motor spins B the right way round", async () => {
    const scenario: JointScenario = {
      name: "cannon",
      world: { gravity: [0, -9.81, 0] },
      bodies: [
        box("bob", [0.1, 0.1, 0.1], [2, 5, 0], { mass: 1 }),
        { id: "axle", type: "static", shape: { type: "sphere", radius: 0.05 }, position: [5, 3, 0] },
        box("wheel", [0.5, 0.5, 0.5], [5, 3, 0], { mass: 2 }),
      ],
      joints: [
        { id: "p", type: "ball", bodyA: "bob", bodyB: null, anchor: [0, 5, 0] },
        { id: "m", type: "hinge", bodyA: "axle", bodyB: "wheel", anchor: [5, 3, 0], axis: [1, 0, 0], motor: { targetVelocity: 2, maxForce: 1000 } },
      ],
    };
    const engine = await loaded(new CannonEngine(), scenario);
    const [pendulum] = localJoints(scenario);
    let previous = engine.rotation("wheel");
    let rate = 0;
    for (let i = 0; i < 120; i++) {
      engine.step();
      // The pivots are right at the start; later cannon-es' own solver lets this rigid 2 m pendulum open up
      // by tens of centimetres at the bottom of the swing (its behaviour, not the translation's).
      if (i === 0) expect(anchorGap(engine, pendulum)).toBeLessThan(0.01);
      const now = engine.rotation("wheel");
      rate = turnAbout(previous, now, [1, 0, 0]) / DT;
      previous = now;
    }
    expect(rate).toBeCloseTo(2, 1);
    engine.dispose();
  });

  it("is left out of scenes with joints it cannot build, and only those", () => {
    const base: JointScenario = { name: "x", bodies: [box("a", [1, 1, 1], [0, 0, 0])], joints: [] };
    const joint = (j: Partial<JointDef>): JointDef => ({ id: "j", type: "ball", bodyA: "a", bodyB: null, anchor: [0, 0, 0], ...j });
    expect(unsupportedJoints("cannon-es", { ...base, joints: [joint({}), joint({ type: "fixed" }), joint({ type: "hinge", axis: [1, 0, 0] })] })).toEqual([]);
    expect(
      unsupportedJoints("cannon-es", {
        ...base,
        joints: [joint({ type: "hinge", axis: [1, 0, 0], limits: [0, 1] }), joint({ type: "slider", axis: [1, 0, 0] }), joint({ type: "distance" })],
      }),
    ).toEqual(["hinge limits", "slider joints", "distance joints"]);
    expect(unsupportedJoints("rapier", { ...base, joints: [joint({ type: "slider", axis: [1, 0, 0] })] })).toEqual([]);
    expect(unsupportedJoints("rapier", { ...base, joints: [joint({ type: "distance", limits: [0, 2] })] })).toEqual([]);
    expect(unsupportedJoints("rapier-simd", { ...base, joints: [joint({ type: "distance", limits: [1, 2] })] })).toEqual([
      "distance lower limits",
    ]);
  });
});
