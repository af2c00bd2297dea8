import RAPIER from "@dimforge/rapier3d-compat";
import { describe, expect, it } from "vitest";
import type { BodyDef, QuatTuple, WorldSettingsPatch } from "../../shared/engine/index.ts";
import { GROUND, worldWith } from "./helpers.ts";

/**
 * Physical claims that need the contact geometry to be exact, not just stable:
 * - a recycled manifold must not move a contact's lever arm (a rolling or sliding sphere gains no energy
 *   and no spin from its own contact);
 * - the soft solver's current separation must follow the true rotation of each anchor (a body spinning
 *   past a wall it never touches is not pushed);
 * - CCD's speculative contacts must not cost energy or accuracy (a restitution-1 ball keeps its height, a
 *   domino chain topples as fast as a converged reference, a sphere glancing off an edge leaves in the
 *   reflected direction).
 */

function sphere(id: string, r: number, position: [number, number, number], extra: Partial<BodyDef> = {}): BodyDef {
  return { id, type: "dynamic", shape: { type: "sphere", radius: r }, position, ...extra };
}

describe("manifold recycling keeps the lever arm", () => {
  it("a sphere rolling at 0.1 m/s on a static box gains no kinetic energy in 5 s", () => {
    const r = 0.5;
    const v = 0.1;
    const w = worldWith({ sleep: false }, [GROUND, sphere("s", r, [0, r, 0], { linearVelocity: [v, 0, 0], angularVelocity: [0, 0, -v / r] })]);
    const h = w.handleOf("s");
    const ke0 = w.kineticEnergy();
    let maxKe = ke0;
    let recycled = 0;
    for (let i = 0; i < 300; i++) {
      w.step();
      recycled += w.lastStepStats.recycled;
      maxKe = Math.max(maxKe, w.kineticEnergy());
    }
    // The scene exercises recycling at all (a slow pair barely moves between ticks).
    expect(recycled).toBeGreaterThan(100);
    // Rolling without slipping on a flat rigid floor: no force does work, so the energy stays put.
    expect(maxKe / ke0).toBeLessThan(1 + 1e-3);
    // ... and nothing slows it down either (no rolling resistance between rigid bodies).
    expect(w.getLinearVelocity(h)[0]).toBeGreaterThan(v * 0.99);
    expect(w.getLinearVelocity(h)[0]).toBeLessThan(v * 1.001);
  });

  it("a frictionless sphere sliding at 0.1 m/s does not start to spin", () => {
    const r = 0.5;
    const w = worldWith({ sleep: false }, [GROUND, sphere("s", r, [0, r, 0], { linearVelocity: [0.1, 0, 0], friction: 0 })]);
    const h = w.handleOf("s");
    let maxSpin = 0;
    for (let i = 0; i < 300; i++) {
      w.step();
      maxSpin = Math.max(maxSpin, Math.hypot(...w.getAngularVelocity(h)));
    }
    // The normal force of a sphere passes through its centre: no torque, and without friction no
    // tangential force either.
    expect(maxSpin).toBeLessThan(1e-9);
    expect(Math.abs(w.getLinearVelocity(h)[0] - 0.1)).toBeLessThan(1e-9);
  });
});

describe("the soft solver's separation follows the exact rotation of the anchors", () => {
  /** A 2 m plank spinning at 25 rad/s about the vertical, no gravity; its corners sweep a circle of radius R. */
  function plank(wallGap: number | null, ccd: boolean) {
    const hx = 1;
    const hz = 0.2;
    const R = Math.hypot(hx, hz);
    const bodies: BodyDef[] = [
      { id: "p", type: "dynamic", shape: { type: "box", halfExtents: [hx, 0.1, hz] }, position: [0, 0, 0], angularVelocity: [0, 25, 0] },
    ];
    if (wallGap !== null) {
      bodies.push({ id: "wall", type: "static", shape: { type: "box", halfExtents: [0.1, 1, 2] }, position: [R + wallGap + 0.1, 0, 0] });
    }
    const w = worldWith({ gravity: [0, 0, 0], sleep: false, ccd }, bodies);
    const h = w.handleOf("p");
    let maxSpeed = 0;
    let constraints = 0;
    for (let i = 0; i < 120; i++) {
      w.step();
      constraints += w.lastStepStats.constraints;
      maxSpeed = Math.max(maxSpeed, Math.hypot(...w.getLinearVelocity(h)));
    }
    return { maxSpeed, angVel: w.getAngularVelocity(h), constraints };
  }

  for (const ccd of [true, false]) {
    it(`a plank spinning at 25 rad/s whose corners pass 1 cm from a static wall is not pushed (ccd ${ccd})`, () => {
      const free = plank(null, ccd);
      const walled = plank(0.01, ccd);
      // The wall is never touched: the plank keeps still and spins exactly as it does without the wall...
      expect(walled.maxSpeed).toBeLessThan(1e-6);
      for (let k = 0; k < 3; k++) expect(Math.abs(walled.angVel[k] - free.angVel[k])).toBeLessThan(1e-6);
      // ... although it is in contact range every half revolution (speculative contacts are solved).
      expect(walled.constraints).toBeGreaterThan(10);
    });
  }
});

// The domino chain of the CCD topple test, and its topple time in ours and in Rapier.
// 1 m tall, 10 cm thick, 50 cm wide, 60 cm apart; the first one leans 10° on its front edge.
const DOMINO_COUNT = 20;
const DOMINO_HALF: [number, number, number] = [0.05, 0.5, 0.25];
const DOMINO_SPACING = 0.6;
const DOMINO_LEAN = (10 * Math.PI) / 180;
function dominoes(): BodyDef[] {
  const out: BodyDef[] = [GROUND];
  for (let i = 0; i < DOMINO_COUNT; i++) {
    const x = i * DOMINO_SPACING;
    if (i === 0) {
      // Rotated by -DOMINO_LEAN about z around its front bottom edge (x + DOMINO_HALF[0], 0).
      const c = Math.cos(DOMINO_LEAN);
      const s = Math.sin(DOMINO_LEAN);
      const rotation: QuatTuple = [0, 0, -Math.sin(DOMINO_LEAN / 2), Math.cos(DOMINO_LEAN / 2)];
      out.push({ id: `d${i}`, type: "dynamic", shape: { type: "box", halfExtents: DOMINO_HALF }, position: [x + DOMINO_HALF[0] - DOMINO_HALF[0] * c + DOMINO_HALF[1] * s, DOMINO_HALF[0] * s + DOMINO_HALF[1] * c, 0], rotation });
    } else {
      out.push({ id: `d${i}`, type: "dynamic", shape: { type: "box", halfExtents: DOMINO_HALF }, position: [x, DOMINO_HALF[1], 0] });
    }
  }
  return out;
}
/** Angle between a body's up axis and the world's, degrees. */
const tilt = (q: readonly number[]) => (Math.acos(Math.min(1, 1 - 2 * (q[0] * q[0] + q[2] * q[2]))) * 180) / Math.PI;
/** Seconds until the last domino leans 45°. */
function toppleTime(step: () => void, lastRotation: () => readonly number[], dt: number): number {
  for (let k = 1; k * dt <= 15; k++) {
    step();
    if (tilt(lastRotation()) > 45) return k * dt;
  }
  return Number.POSITIVE_INFINITY;
}
function oursToppleTime(settings: WorldSettingsPatch): number {
  const w = worldWith(settings, dominoes());
  const last = w.handleOf(`d${DOMINO_COUNT - 1}`);
  return toppleTime(() => w.step(), () => w.getRotation(last), 1 / w.settings.tickRate);
}
async function rapierToppleTime(hz: number, iterations: number): Promise<number> {
  await RAPIER.init();
  const w = new RAPIER.World({ x: 0, y: -9.81, z: 0 });
  try {
    w.timestep = 1 / hz;
    w.integrationParameters.numSolverIterations = iterations;
    let last: RAPIER.RigidBody | null = null;
    for (const d of dominoes()) {
      const desc = d.type === "dynamic" ? RAPIER.RigidBodyDesc.dynamic() : RAPIER.RigidBodyDesc.fixed();
      desc.setTranslation(d.position[0], d.position[1], d.position[2]);
      const q = d.rotation ?? [0, 0, 0, 1];
      desc.setRotation({ x: q[0], y: q[1], z: q[2], w: q[3] });
      const body = w.createRigidBody(desc);
      const he = (d.shape as { halfExtents: [number, number, number] }).halfExtents;
      // Same friction (our default 0.5, Rapier's default combine rule is the average) and density.
      const cd = RAPIER.ColliderDesc.cuboid(he[0], he[1], he[2]).setFriction(0.5);
      if (d.type === "dynamic") cd.setDensity(1);
      w.createCollider(cd, body);
      if (d.id === `d${DOMINO_COUNT - 1}`) last = body;
    }
    const b = last!;
    return toppleTime(() => w.step(), () => {
      const q = b.rotation();
      return [q.x, q.y, q.z, q.w];
    }, 1 / hz);
  } finally {
    w.free();
  }
}

/**
 * A frictionless, restitution-1 sphere falls straight onto the edge of a static box (no gravity),
 * offset `d` beyond the edge. At impact its centre is at (d, √(r² - d²)) from the edge, the normal is
 * that direction and the outgoing velocity the reflection of the incoming one about it.
 */
function errorDeg(ccd: boolean, d: number, speed: number, y0: number): number {
  const r = 0.5;
  const w = worldWith({ gravity: [0, 0, 0], sleep: false, ccd }, [
    { id: "box", type: "static", shape: { type: "box", halfExtents: [1, 1, 1] }, position: [-1, -1, 0] },
    sphere("s", r, [d, y0, 0], { linearVelocity: [0, -speed, 0], restitution: 1, friction: 0 }),
  ]);
  const h = w.handleOf("s");
  for (let i = 0; i < 120; i++) w.step();
  const v = w.getLinearVelocity(h);
  const nx = d / r;
  const ny = Math.sqrt(r * r - d * d) / r;
  const vn = -speed * ny;
  const ix = -2 * vn * nx;
  const iy = -speed - 2 * vn * ny;
  const cos = (v[0] * ix + v[1] * iy) / (Math.hypot(...v) * Math.hypot(ix, iy));
  return (Math.acos(Math.min(1, cos)) * 180) / Math.PI;
}
const glancingStats = (ccd: boolean) => {
  let sum = 0;
  let max = 0;
  let count = 0;
  for (const d of [0.1, 0.2, 0.3, 0.4]) {
    for (const speed of [3, 6, 10]) {
      // Eight start heights spread over one tick's travel: every phase of the impact within a tick.
      for (let k = 0; k < 8; k++) {
        const e = errorDeg(ccd, d, speed, 1 + (k / 8) * (speed / 60));
        sum += e;
        max = Math.max(max, e);
        count++;
      }
    }
  }
  return { mean: sum / count, max };
};

describe("CCD's speculative contacts cost no energy and no accuracy", () => {
  for (const drop of [0.5, 1, 2, 5]) {
    it(`a restitution-1 ball dropped from ${drop} m keeps its apex within 1 % over 10 bounces (CCD on, default settings)`, () => {
      const r = 0.5;
      const w = worldWith({}, [GROUND, sphere("s", r, [0, r + drop, 0], { restitution: 1 })]);
      expect(w.settings.ccd).toBe(true);
      const h = w.handleOf("s");
      const apexes: number[] = [];
      let top = Number.NEGATIVE_INFINITY;
      let prevV = 0;
      for (let i = 0; i < 60 * 30 && apexes.length < 10; i++) {
        w.step();
        const y = w.getPosition(h)[1] - r;
        const v = w.getLinearVelocity(h)[1];
        top = Math.max(top, y);
        if (prevV > 0 && v <= 0) {
          apexes.push(top);
          top = Number.NEGATIVE_INFINITY;
        }
        prevV = v;
      }
      expect(apexes.length).toBe(10);
      // Elastic bounce: every apex is back at the drop height (sampled once a tick, so a parabola's top
      // is missed by at most ½ g (dt/2)² = 0.3 mm).
      const worst = Math.max(...apexes.map((a) => Math.abs(a - drop) / drop));
      expect(worst, `apex / drop: ${apexes.map((a) => (a / drop).toFixed(4)).join(" ")}`).toBeLessThan(0.01);
    });
  }

  describe("a chain of 20 dominoes topples as fast as a converged reference (default settings)", () => {
    it("within 10 % of Rapier at 480 Hz / 8 iterations (converged: 960 Hz agrees within 1 %)", async () => {
      const reference = await rapierToppleTime(480, 8);
      const finer = await rapierToppleTime(960, 8);
      expect(Math.abs(finer - reference) / reference).toBeLessThan(0.01);
      const t = oursToppleTime({});
      expect(Math.abs(t - reference) / reference, `ours ${t} s, reference ${reference} s`).toBeLessThan(0.1);
    });
  });

  it("a sphere glancing off a box edge leaves in the reflected direction, with CCD no worse than without", () => {
    const on = glancingStats(true);
    const off = glancingStats(false);
    const msg = `ccd on: mean ${on.mean.toFixed(3)}°, max ${on.max.toFixed(3)}°; off: mean ${off.mean.toFixed(3)}°, max ${off.max.toFixed(3)}°`;
    expect(on.mean, msg).toBeLessThanOrEqual(off.mean);
    expect(on.max, msg).toBeLessThanOrEqual(off.max);
    // CCD sees the impact coming: it can take the normal where the sphere touches, and then the
    // reflection is exact, not just no worse.
    expect(on.max, msg).toBeLessThan(0.5);
  });
});
