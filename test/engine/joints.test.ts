import { describe, expect, it } from "vitest";
import { type BodyDef, type JointDef, type Vec3Tuple, World } from "../../shared/engine/index.ts";
import { GROUND, steps } from "./helpers.ts";

const G = 9.81;

/** A world without sleep unless asked, with the given bodies and joints. */
function world(bodies: BodyDef[], joints: JointDef[], settings: ConstructorParameters<typeof World>[0] = { sleep: false }): World {
  const w = new World(settings);
  for (const b of bodies) w.createBody(b);
  for (const j of joints) w.createJoint(j);
  return w;
}

/** Complete elliptic integral of the first kind K(k) by the arithmetic-geometric mean (test-side reference). */
function ellipticK(k: number): number {
  let a = 1;
  let b = Math.sqrt(1 - k * k);
  for (let i = 0; i < 20; i++) [a, b] = [(a + b) / 2, Math.sqrt(a * b)];
  return Math.PI / (2 * a);
}

/** Mean period of a pendulum from its downward crossings of x = 0 (linear interpolation between ticks). */
function pendulumPeriod(degrees: number, length: number): { period: number; maxStretch: number } {
  const th = (degrees * Math.PI) / 180;
  const w = world(
    [{ id: "bob", type: "dynamic", shape: { type: "sphere", radius: 0.01 }, position: [length * Math.sin(th), -length * Math.cos(th), 0], mass: 1 }],
    [{ id: "pivot", type: "ball", bodyA: "bob", bodyB: null, anchor: [0, 0, 0] }],
  );
  const h = w.handleOf("bob");
  let prev = w.getPosition(h)[0];
  const crossings: number[] = [];
  let maxStretch = 0;
  for (let i = 1; i <= 60 * 20; i++) {
    w.step();
    const p = w.getPosition(h);
    maxStretch = Math.max(maxStretch, Math.abs(Math.hypot(p[0], p[1], p[2]) - length));
    if (prev > 0 && p[0] <= 0) crossings.push((i - 1 + prev / (prev - p[0])) / 60);
    prev = p[0];
  }
  return { period: (crossings[crossings.length - 1] - crossings[0]) / (crossings.length - 1), maxStretch };
}

describe("pendulum on a ball joint", () => {
  it("swings at 5° with the small-angle period 2π√(L/g) within 0.5%", () => {
    const L = 2;
    const { period, maxStretch } = pendulumPeriod(5, L);
    const expected = 2 * Math.PI * Math.sqrt(L / G);
    console.log(`pendulum 5°: period ${period.toFixed(5)} s vs 2π√(L/g) ${expected.toFixed(5)} s, stretch ${(maxStretch * 1000).toFixed(3)} mm`);
    expect(Math.abs(period / expected - 1)).toBeLessThan(0.005);
    expect(maxStretch).toBeLessThan(0.001);
  });

  it("swings at 60° with the exact large-amplitude period 4√(L/g)·K(sin 30°) within 1%", () => {
    const L = 1;
    const { period } = pendulumPeriod(60, L);
    const exact = 4 * Math.sqrt(L / G) * ellipticK(Math.sin(Math.PI / 6));
    console.log(`pendulum 60°: period ${period.toFixed(5)} s vs exact ${exact.toFixed(5)} s (small-angle ${(2 * Math.PI * Math.sqrt(L / G)).toFixed(5)} s)`);
    expect(Math.abs(period / exact - 1)).toBeLessThan(0.01);
    // And it is not the small-angle period: the test can tell them apart.
    expect(exact / (2 * Math.PI * Math.sqrt(L / G)) - 1).toBeGreaterThan(0.05);
  });
});

describe("hinge", () => {
  const door = (): World =>
    world(
      [{ id: "door", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 1, 0.05] }, position: [0.5, 1, 0], mass: 20 }],
      [{ id: "hinge", type: "hinge", bodyA: "door", bodyB: null, anchor: [0, 1, 0], axis: [0, 1, 0], limits: [-Math.PI / 2, 0] }],
      { sleep: false, gravity: [0, 0, 0] },
    );

  for (const [push, limit] of [
    [5, -Math.PI / 2],
    [-5, 0],
  ] as const) {
    it(`pushed hard (${push} N·s every tick at its edge) stops at its limit ${limit.toFixed(3)} rad, overshoot < 1°`, () => {
      const w = door();
      const h = w.handleOf("door");
      const j = w.jointHandleOf("hinge");
      if (limit === 0) {
        // Start open half-way so that the push has room to build up speed before it hits the limit.
        w.setTransform(h, [0.5 * Math.SQRT1_2, 1, 0.5 * Math.SQRT1_2], [0, -Math.sin(Math.PI / 8), 0, Math.cos(Math.PI / 8)]);
      }
      let worst = 0;
      for (let i = 0; i < 240; i++) {
        const p = w.getPosition(h);
        // Push the free edge: the edge's point, perpendicular to the door in the horizontal plane.
        const dir = [p[0], 0, p[2]];
        const n = Math.hypot(dir[0], dir[2]);
        w.applyImpulse(h, [(push * -dir[2]) / n, 0, (push * dir[0]) / n], [2 * p[0], 1, 2 * p[2]]);
        w.step();
        const a = w.getJointCoordinate(j);
        worst = Math.max(worst, limit < 0 ? limit - a : a - limit);
      }
      console.log(`door against ${limit.toFixed(3)}: final ${w.getJointCoordinate(j).toFixed(5)} rad, worst overshoot ${((worst * 180) / Math.PI).toFixed(4)}°`);
      expect(Math.abs(w.getJointCoordinate(j) - limit)).toBeLessThan((1 * Math.PI) / 180);
      expect(worst).toBeLessThan((1 * Math.PI) / 180);
    });
  }

  const wheel = (motor: { targetVelocity: number; maxForce: number }, gravity: Vec3Tuple = [0, -G, 0]): World =>
    world(
      // A cylinder's axis is its local y: turned a quarter about z, it lies along x.
      [{ id: "wheel", type: "dynamic", shape: { type: "cylinder", radius: 0.5, halfHeight: 0.1 }, position: [0, 1, 0], rotation: [0, 0, Math.SQRT1_2, Math.SQRT1_2], mass: 10 }],
      [{ id: "axle", type: "hinge", bodyA: "wheel", bodyB: null, anchor: [0, 1, 0], axis: [1, 0, 0], motor }],
      { sleep: false, gravity },
    );

  it("motor at 2 rad/s with enough torque spins at 2.000 ± 0.01 rad/s", () => {
    const w = wheel({ targetVelocity: 2, maxForce: 100 });
    steps(w, 120);
    const spin = w.getAngularVelocity(w.handleOf("wheel"));
    console.log(`motor: ω = ${spin.map((x) => x.toFixed(6)).join(", ")}`);
    expect(Math.abs(spin[0] - 2)).toBeLessThan(0.01);
    expect(Math.hypot(spin[1], spin[2])).toBeLessThan(1e-6);
  });

  it("motor with too little torque against a load accelerates as τ = I α says", () => {
    // I about the axle: m r² / 2 = 1.25 kg m². Motor 0.5 N·m towards +100 rad/s against a 2 N·m load (a
    // force couple applied each tick): α = (0.5 - 2) / 1.25 = -1.2 rad/s².
    const I = (10 * 0.5 * 0.5) / 2;
    const motorTorque = 0.5;
    const load = 2;
    const w = wheel({ targetVelocity: 100, maxForce: motorTorque }, [0, 0, 0]);
    const h = w.handleOf("wheel");
    const dt = 1 / 60;
    const seconds = 2;
    for (let i = 0; i < 60 * seconds; i++) {
      // A couple of ±F at ±1 m along z about the axle: torque -load about x.
      const F = (load / 2) * dt;
      w.applyImpulse(h, [0, F, 0], [0, 1, 1]);
      w.applyImpulse(h, [0, -F, 0], [0, 1, -1]);
      w.step();
    }
    const omega = w.getAngularVelocity(h)[0];
    const expected = ((motorTorque - load) / I) * seconds;
    console.log(`stalled motor: ω after ${seconds} s = ${omega.toFixed(6)} rad/s, τ/I·t = ${expected.toFixed(6)}`);
    expect(Math.abs(omega - expected)).toBeLessThan(1e-3 * Math.abs(expected));
    // Without the load the same motor spins up at τ/I.
    const free = wheel({ targetVelocity: 100, maxForce: motorTorque }, [0, 0, 0]);
    steps(free, 60);
    expect(free.getAngularVelocity(free.handleOf("wheel"))[0]).toBeCloseTo(motorTorque / I, 9);
  });

  it("keeps its axis: a hinged plank under gravity turns only about the axis", () => {
    const w = world(
      [{ id: "plank", type: "dynamic", shape: { type: "box", halfExtents: [1, 0.05, 0.2] }, position: [1, 0, 0], mass: 3 }],
      [{ id: "h", type: "hinge", bodyA: "plank", bodyB: null, anchor: [0, 0, 0], axis: [0, 0, 1] }],
    );
    const h = w.handleOf("plank");
    let worstZ = 0;
    for (let i = 0; i < 300; i++) {
      w.step();
      const q = w.getRotation(h);
      worstZ = Math.max(worstZ, Math.abs(q[0]), Math.abs(q[1]), Math.abs(w.getPosition(h)[2]));
    }
    expect(worstZ).toBeLessThan(1e-6);
    // And it swung: the plank is no longer horizontal.
    expect(Math.abs(w.getJointCoordinate(w.jointHandleOf("h")))).toBeGreaterThan(0.3);
  });
});

describe("slider", () => {
  it("a motor drives it along its axis up to its limit; it neither turns nor leaves the axis", () => {
    const w = world(
      [
        GROUND,
        { id: "carriage", type: "dynamic", shape: { type: "box", halfExtents: [0.2, 0.2, 0.2] }, position: [0, 2, 0], mass: 2 },
      ],
      [{ id: "rail", type: "slider", bodyA: "carriage", bodyB: null, anchor: [0, 2, 0], axis: [1, 1, 0], limits: [-0.5, 1], motor: { targetVelocity: 1, maxForce: 200 } }],
    );
    const h = w.handleOf("carriage");
    const j = w.jointHandleOf("rail");
    steps(w, 30);
    // Half a second at 1 m/s (after a short spin-up): travel 0.5 m along (1, 1, 0)/√2.
    const travel = w.getJointCoordinate(j);
    expect(travel).toBeGreaterThan(0.45);
    expect(travel).toBeLessThan(0.5);
    steps(w, 120);
    const p = w.getPosition(h);
    expect(w.getJointCoordinate(j)).toBeCloseTo(1, 2);
    expect(p[0] - p[1] + 2).toBeCloseTo(0, 3); // still on the line x = y - 2
    expect(Math.abs(p[2])).toBeLessThan(1e-6);
    const q = w.getRotation(h);
    expect(Math.hypot(q[0], q[1], q[2])).toBeLessThan(1e-4);
  });
});

describe("distance", () => {
  it("a rope [0, L] is slack inside L and holds its load at L", () => {
    const w = world(
      [{ id: "weight", type: "dynamic", shape: { type: "sphere", radius: 0.1 }, position: [0, -1, 0], mass: 2 }],
      [{ id: "rope", type: "distance", bodyA: "weight", bodyB: null, anchor: [0, -1, 0], anchorB: [0, 0, 0], limits: [0, 2] }],
    );
    const h = w.handleOf("weight");
    const j = w.jointHandleOf("rope");
    // Free fall for the first metre: no rope force.
    steps(w, 10);
    expect(w.getLinearVelocity(h)[1]).toBeCloseTo((-G * 10) / 60, 6);
    steps(w, 300);
    expect(w.getJointCoordinate(j)).toBeCloseTo(2, 2);
    // At rest at L, the rope carries the weight: the force on A is m g upwards.
    const force = w.jointReaction(j).force;
    expect(force[1]).toBeCloseTo(2 * G, 1);
  });

  it("a spring [L, L] oscillates at its frequency", () => {
    const f = 2;
    const w = world(
      [{ id: "mass", type: "dynamic", shape: { type: "sphere", radius: 0.1 }, position: [0, -1.2, 0], mass: 3 }],
      [{ id: "spring", type: "distance", bodyA: "mass", bodyB: null, anchor: [0, -1.2, 0], anchorB: [0, 0, 0], limits: [1, 1], spring: { frequency: f, dampingRatio: 0 } }],
      { sleep: false, gravity: [0, 0, 0] },
    );
    const h = w.handleOf("mass");
    let prev = w.getPosition(h)[1] + 1;
    const ups: number[] = [];
    for (let i = 1; i <= 60 * 5; i++) {
      w.step();
      const y = w.getPosition(h)[1] + 1;
      if (prev < 0 && y >= 0) ups.push(i - 1 + -prev / (y - prev));
      prev = y;
    }
    const period = (ups[ups.length - 1] - ups[0]) / (ups.length - 1) / 60;
    console.log(`spring ${f} Hz: period ${period.toFixed(5)} s (1/f = ${(1 / f).toFixed(5)})`);
    expect(Math.abs(period * f - 1)).toBeLessThan(0.03);
  });
});

describe("fixed joint", () => {
  it("welds two boxes: the pair tumbles as one body (relative drift < 1 mm over 10 s)", () => {
    const w = world(
      [
        { id: "a", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.2, 0.3] }, position: [0, 0, 0], angularVelocity: [3, 5, 1], mass: 2 },
        { id: "b", type: "dynamic", shape: { type: "box", halfExtents: [0.3, 0.3, 0.3] }, position: [0.8, 0, 0], angularVelocity: [3, 5, 1], mass: 1 },
      ],
      [{ id: "weld", type: "fixed", bodyA: "a", bodyB: "b", anchor: [0.5, 0, 0] }],
      { sleep: false, gravity: [0, 0, 0] },
    );
    const a = w.handleOf("a");
    const b = w.handleOf("b");
    const relative = (): number[] => {
      const pa = w.getPosition(a);
      const pb = w.getPosition(b);
      const [x, y, z, s] = w.getRotation(a);
      const d = [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]];
      // d in A's frame (conjugate rotation).
      const tx = 2 * (-y * d[2] + z * d[1]);
      const ty = 2 * (-z * d[0] + x * d[2]);
      const tz = 2 * (-x * d[1] + y * d[0]);
      return [d[0] + s * tx + (-y * tz + z * ty), d[1] + s * ty + (-z * tx + x * tz), d[2] + s * tz + (-x * ty + y * tx)];
    };
    const start = relative();
    let drift = 0;
    let turned = 0;
    for (let i = 0; i < 600; i++) {
      w.step();
      const r = relative();
      drift = Math.max(drift, Math.hypot(r[0] - start[0], r[1] - start[1], r[2] - start[2]));
      const qa = w.getRotation(a);
      const qb = w.getRotation(b);
      turned = Math.max(turned, 1 - Math.abs(qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3]));
    }
    console.log(`weld: relative drift ${(drift * 1000).toFixed(3)} mm, relative turn ${turned.toExponential(2)}`);
    expect(drift).toBeLessThan(0.001);
    expect(turned).toBeLessThan(1e-5);
  });
});

describe("chain", () => {
  /** World distance between a joint's two anchors (0 for a perfectly held joint). */
  function gap(w: World, id: string): number {
    const j = w.getJoint(w.jointHandleOf(id));
    const at = (body: string | null, local: Vec3Tuple): number[] => {
      if (body === null) return local;
      const h = w.handleOf(body);
      const p = w.getPosition(h);
      const [x, y, z, s] = w.getRotation(h);
      const tx = 2 * (y * local[2] - z * local[1]);
      const ty = 2 * (z * local[0] - x * local[2]);
      const tz = 2 * (x * local[1] - y * local[0]);
      return [p[0] + local[0] + s * tx + (y * tz - z * ty), p[1] + local[1] + s * ty + (z * tx - x * tz), p[2] + local[2] + s * tz + (x * ty - y * tx)];
    };
    const a = at(j.bodyA, j.localAnchorA);
    const b = at(j.bodyB, j.localAnchorB);
    return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
  }

  it("a 30-link chain holding a 10x heavier ball stretches less than 1% at rest and never explodes", () => {
    const links = 30;
    const len = 0.5;
    const bodies: BodyDef[] = [];
    const joints: JointDef[] = [{ id: "j0", type: "ball", bodyA: "l0", bodyB: null, anchor: [0, 0, 0] }];
    for (let i = 0; i < links; i++) {
      bodies.push({ id: `l${i}`, type: "dynamic", shape: { type: "capsule", radius: 0.05, halfHeight: 0.2 }, position: [0, -len * (i + 0.5), 0], mass: 1 });
      if (i > 0) joints.push({ id: `j${i}`, type: "ball", bodyA: `l${i}`, bodyB: `l${i - 1}`, anchor: [0, -len * i, 0] });
    }
    bodies.push({ id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.3 }, position: [0, -len * links - 0.3, 0], mass: 10 });
    joints.push({ id: `j${links}`, type: "ball", bodyA: "ball", bodyB: `l${links - 1}`, anchor: [0, -len * links, 0] });
    const w = world(bodies, joints, {});
    const rest = len * links;
    const stretch = (): number => {
      let sum = 0;
      for (let i = 0; i <= links; i++) sum += gap(w, `j${i}`);
      return sum / rest;
    };
    steps(w, 600);
    const atRest = stretch();
    // Then a hard kick sideways: it swings up, comes back, and nothing flies apart.
    const ball = w.handleOf("ball");
    const kick = 8;
    w.setLinearVelocity(ball, [kick, 0, 0]);
    let fastest = 0;
    let worst = 0;
    for (let i = 0; i < 60 * 20; i++) {
      w.step();
      fastest = Math.max(fastest, Math.hypot(...w.getLinearVelocity(ball)));
      worst = Math.max(worst, stretch());
    }
    console.log(`chain: stretch at rest ${(atRest * 100).toFixed(3)}% of ${rest} m; after an ${kick} m/s kick: fastest ball ${fastest.toFixed(2)} m/s, worst stretch ${(worst * 100).toFixed(3)}%`);
    expect(atRest).toBeLessThan(0.01);
    // Never explodes: no body gains energy from the joints (the kick is the most the ball ever has) and
    // the chain holds together while it swings.
    expect(fastest).toBeLessThanOrEqual(kick * 1.001);
    expect(worst).toBeLessThan(0.05);
    expect(w.bodyCount).toBe(links + 1);
  });
});

describe("breaking, events and islands", () => {
  const hanging = (breakForce?: number): World =>
    world(
      [
        { id: "beam", type: "static", shape: { type: "box", halfExtents: [1, 0.1, 0.1] }, position: [0, 3, 0] },
        { id: "lamp", type: "dynamic", shape: { type: "box", halfExtents: [0.2, 0.2, 0.2] }, position: [0, 2, 0], mass: 5 },
      ],
      [{ id: "cord", type: "distance", bodyA: "lamp", bodyB: "beam", anchor: [0, 2.2, 0], anchorB: [0, 2.9, 0], limits: [0, 0.7], breakForce }],
      {},
    );

  it("jointReaction reports the load; a joint over its breakForce breaks with a jointBreak event", () => {
    const w = hanging();
    steps(w, 60);
    const j = w.jointHandleOf("cord");
    const f = w.jointReaction(j).force;
    expect(f[1]).toBeCloseTo(5 * G, 3);
    expect(Math.abs(f[0]) + Math.abs(f[2])).toBeLessThan(1e-6);

    const breaking = hanging(40);
    const events: string[] = [];
    for (let i = 0; i < 60; i++) {
      breaking.step();
      breaking.forEachEvent((e) => {
        if (e.type === "jointBreak") events.push(`${breaking.tick} ${e.joint} ${e.a} ${e.b} ${e.impulse > 40}`);
      });
    }
    expect(events).toHaveLength(1);
    expect(events[0]).toMatch(/^\d+ cord lamp beam true$/);
    expect(breaking.jointCount).toBe(0);
    expect(breaking.hasJoint(breaking.jointHandleOf("cord"))).toBe(false);
    // Then the lamp falls.
    expect(breaking.getLinearVelocity(breaking.handleOf("lamp"))[1]).toBeLessThan(-1);
  });

  it("a jolt along a taut rope breaks it: the reaction is the step's mean force, not its last sub-step's", () => {
    const rope = (down: number): World => {
      const w = world(
        [{ id: "bob", type: "dynamic", shape: { type: "sphere", radius: 0.1 }, position: [0, -2, 0], mass: 1, linearVelocity: [0, -down, 0] }],
        [{ id: "rope", type: "distance", bodyA: "bob", bodyB: null, anchor: [0, -2, 0], anchorB: [0, 0, 0], limits: [0, 2], breakForce: 40 }],
      );
      w.step();
      return w;
    };
    // Hanging still it carries its weight; stopped from 10 m/s within the step it feels ~600 N and snaps.
    expect(rope(0).jointCount).toBe(1);
    const yanked = rope(10);
    expect(yanked.jointCount).toBe(0);
    let force = 0;
    yanked.forEachEvent((e) => {
      if (e.type === "jointBreak") force = e.impulse;
    });
    expect(force).toBeGreaterThan(500);
  });

  it("joined bodies sleep and wake as one island; removing a body removes its joints", () => {
    const w = world(
      [GROUND, ...[0, 1, 2].map((i): BodyDef => ({ id: `b${i}`, type: "dynamic", shape: { type: "box", halfExtents: [0.2, 0.2, 0.2] }, position: [i * 0.5, 0.2, 0] }))],
      [
        { id: "j01", type: "hinge", bodyA: "b1", bodyB: "b0", anchor: [0.25, 0.2, 0], axis: [0, 0, 1] },
        { id: "j12", type: "ball", bodyA: "b2", bodyB: "b1", anchor: [0.75, 0.2, 0] },
      ],
      {},
    );
    steps(w, 120);
    const hs = [0, 1, 2].map((i) => w.handleOf(`b${i}`));
    expect(hs.every((h) => w.isSleeping(h))).toBe(true);
    w.wake(hs[0]);
    // b2 touches b1 only through the joint, yet wakes with it.
    expect(hs.every((h) => !w.isSleeping(h))).toBe(true);
    const version = w.jointsVersion;
    w.removeBody(hs[1]);
    expect(w.jointCount).toBe(0);
    expect(w.jointsVersion).not.toBe(version);
  });

  it("joined bodies do not collide unless collideConnected", () => {
    const overlapping = (collideConnected: boolean): number => {
      const w = world(
        [
          { id: "a", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [0, 0, 0] },
          { id: "b", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [0.6, 0, 0] },
        ],
        [{ id: "j", type: "ball", bodyA: "a", bodyB: "b", anchor: [0.3, 0, 0], collideConnected }],
        { sleep: false, gravity: [0, 0, 0] },
      );
      steps(w, 30);
      let contacts = 0;
      w.forEachContact(() => contacts++);
      return contacts;
    };
    expect(overlapping(false)).toBe(0);
    expect(overlapping(true)).toBe(1);
  });

  it("createJoint refuses what the world cannot take, naming the joint", () => {
    const w = world([GROUND, { id: "a", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0, 1, 0] }], []);
    const base = { id: "j", bodyA: "a", bodyB: null, anchor: [0, 1, 0] as Vec3Tuple };
    expect(() => w.createJoint({ ...base, type: "ball", bodyA: "x" })).toThrow(/joint "j": no body "x"/);
    expect(() => w.createJoint({ ...base, type: "ball", bodyB: "a" })).toThrow(/same body/);
    expect(() => w.createJoint({ ...base, type: "ball", bodyA: "ground" })).toThrow(/dynamic/);
    expect(() => w.createJoint({ ...base, type: "hinge" })).toThrow(/axis is required/);
    expect(() => w.createJoint({ ...base, type: "hinge", axis: [0, 0, 0] })).toThrow(/zero/);
    expect(() => w.createJoint({ ...base, type: "hinge", axis: [0, 1, 0], limits: [1, -1] })).toThrow(/lo <= hi/);
    expect(() => w.createJoint({ ...base, type: "hinge", axis: [0, 1, 0], motor: { targetVelocity: 1, maxForce: -1 } })).toThrow(/maxForce/);
    expect(() => w.createJoint({ ...base, type: "distance" })).toThrow(/anchorB/);
    expect(() => w.createJoint({ ...base, type: "distance", anchorB: [0, 2, 0], spring: { frequency: -1, dampingRatio: 0 } })).toThrow(/frequency/);
    expect(w.jointCount).toBe(0);
    w.createJoint({ ...base, type: "ball" });
    expect(() => w.createJoint({ ...base, type: "ball" })).toThrow(/duplicate/);
  });

  it("a snapshot of a world with joints continues bit for bit", () => {
    const make = (): World =>
      world(
        [
          GROUND,
          { id: "a", type: "dynamic", shape: { type: "box", halfExtents: [0.3, 0.1, 0.1] }, position: [0, 2, 0], angularVelocity: [0, 0, 2] },
          { id: "b", type: "dynamic", shape: { type: "capsule", radius: 0.1, halfHeight: 0.3 }, position: [0.6, 2, 0] },
        ],
        [
          { id: "h", type: "hinge", bodyA: "a", bodyB: null, anchor: [-0.3, 2, 0], axis: [0, 0, 1], limits: [-1, 1], motor: { targetVelocity: 1, maxForce: 5 } },
          { id: "d", type: "distance", bodyA: "b", bodyB: "a", anchor: [0.6, 2.3, 0], anchorB: [0.3, 2, 0], limits: [0.2, 0.6] },
        ],
        {},
      );
    const original = make();
    steps(original, 40);
    const copy = World.fromSnapshot(original.snapshot());
    for (let i = 0; i < 120; i++) {
      original.step();
      copy.step();
      expect(copy.stateHash()).toBe(original.stateHash());
    }
    expect(copy.getJointCoordinate(copy.jointHandleOf("h"))).toBe(original.getJointCoordinate(original.jointHandleOf("h")));
  });
});

describe("reading joints", () => {
  it("getJoint gives each body's anchor and axis in its own frame, the same numbers at every tick however the bodies turn", () => {
    // A hull whose centre of mass is off its origin (so its reference frame is not its mass frame) on a
    // hinge, and a box swinging on a ball joint from it: both tumble for two seconds.
    const hull: BodyDef = {
      id: "hull",
      type: "dynamic",
      shape: { type: "hull", points: [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.6, 0.6, 0.6]] },
      position: [0, 2, 0],
      rotation: [0, 0, Math.SQRT1_2, Math.SQRT1_2],
      mass: 2,
    };
    const box: BodyDef = { id: "box", type: "dynamic", shape: { type: "box", halfExtents: [0.1, 0.3, 0.1] }, position: [1, 1, 0.5], mass: 1 };
    const w = world(
      [hull, box],
      [
        { id: "hinge", type: "hinge", bodyA: "hull", bodyB: null, anchor: [0.1, 2.1, 0.1], axis: [1, 1, 0] },
        { id: "ball", type: "ball", bodyA: "box", bodyB: "hull", anchor: [1, 1.3, 0.5] },
      ],
    );
    w.applyImpulse(w.handleOf("box"), [0, 0, 3]);
    const read = () => JSON.stringify([w.getJoint(w.jointHandleOf("hinge")), w.getJoint(w.jointHandleOf("ball"))]);
    const first = read();
    const info = w.getJoint(w.jointHandleOf("hinge"));
    // The hull's reference frame is its definition's: the world anchor, less its position, turned back by
    // its rotation (90° about z: world (x, y) is local (y, -x)).
    expect(info.localAnchorA[0]).toBeCloseTo(0.1, 12);
    expect(info.localAnchorA[1]).toBeCloseTo(-0.1, 12);
    expect(info.localAnchorA[2]).toBeCloseTo(0.1, 12);
    expect(info.localAxisA[0]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(info.localAxisA[1]).toBeCloseTo(-Math.SQRT1_2, 12);
    const turn = w.getRotation(w.handleOf("hull"));
    for (let i = 0; i < 120; i++) {
      w.step();
      expect(read()).toBe(first);
    }
    expect(Math.abs(w.getRotation(w.handleOf("hull"))[3] - turn[3])).toBeGreaterThan(0.05);
  });
});
