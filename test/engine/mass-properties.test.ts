import { describe, expect, it } from "vitest";
import { buildHull, transformHull } from "../../shared/engine/geometry/hull-builder.ts";
import {
  boxMassProperties,
  capsuleMassProperties,
  combineMassProperties,
  cylinderMassProperties,
  hullMassProperties,
  type MassProperties,
  principalAxes,
  sphereMassProperties,
} from "../../shared/engine/geometry/mass-properties.ts";

function rotationMatrix(q: readonly number[]): number[] {
  const [x, y, z, w] = q;
  return [
    1 - 2 * (y * y + z * z),
    2 * (x * y - w * z),
    2 * (x * z + w * y),
    2 * (x * y + w * z),
    1 - 2 * (x * x + z * z),
    2 * (y * z - w * x),
    2 * (x * z - w * y),
    2 * (y * z + w * x),
    1 - 2 * (x * x + y * y),
  ];
}

function det3(m: number[]): number {
  return m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
}

function unit(q: number[]): number[] {
  const l = Math.hypot(...q);
  return q.map((v) => v / l);
}

/** R diag(d) Rᵀ as [xx, yy, zz, xy, xz, yz]. */
function rotatedDiagonal(d: number[], q: number[]): number[] {
  const r = rotationMatrix(q);
  const e = (i: number, j: number) => r[i * 3] * d[0] * r[j * 3] + r[i * 3 + 1] * d[1] * r[j * 3 + 1] + r[i * 3 + 2] * d[2] * r[j * 3 + 2];
  return [e(0, 0), e(1, 1), e(2, 2), e(0, 1), e(0, 2), e(1, 2)];
}

function expectClose(a: MassProperties, b: MassProperties, rel: number): void {
  const scale = Math.max(...b.inertia.map(Math.abs));
  expect(Math.abs(a.volume - b.volume)).toBeLessThanOrEqual(rel * b.volume);
  for (let k = 0; k < 3; k++) expect(Math.abs(a.center[k] - b.center[k])).toBeLessThanOrEqual(rel * Math.cbrt(b.volume));
  for (let k = 0; k < 6; k++) expect(Math.abs(a.inertia[k] - b.inertia[k])).toBeLessThanOrEqual(rel * scale);
}

function boxCorners(hx: number, hy: number, hz: number, offset = [0, 0, 0]): number[][] {
  const pts: number[][] = [];
  for (const z of [-hz, hz]) for (const y of [-hy, hy]) for (const x of [-hx, hx]) pts.push([x + offset[0], y + offset[1], z + offset[2]]);
  return pts;
}

describe("closed forms", () => {
  it("sphere, box and cylinder match the textbook values", () => {
    const s = sphereMassProperties(2);
    expect(s.volume).toBeCloseTo((32 / 3) * Math.PI, 12);
    expect(s.inertia[0]).toBeCloseTo(0.4 * s.volume * 4, 12);
    const b = boxMassProperties(1, 2, 3);
    expect(b.volume).toBe(48);
    expect(b.inertia).toEqual([(48 * (16 + 36)) / 12, (48 * (4 + 36)) / 12, (48 * (4 + 16)) / 12, 0, 0, 0]);
    const c = cylinderMassProperties(0.5, 2);
    expect(c.volume).toBeCloseTo(Math.PI * 0.25 * 4, 12);
    expect(c.inertia[1]).toBeCloseTo(0.5 * c.volume * 0.25, 12);
    expect(c.inertia[0]).toBeCloseTo((c.volume * (3 * 0.25 + 16)) / 12, 12);
    expect(c.inertia[2]).toBe(c.inertia[0]);
  });

  it("capsule matches numerical integration over discs along its axis", () => {
    for (const [r, h] of [
      [0.5, 1],
      [1, 0.25],
      [0.3, 0],
    ]) {
      // Simpson over y of discs of radius ρ(y): dV = π ρ² dy, dIyy = π ρ⁴ / 2 dy, dIxx = (π ρ⁴ / 4 + π ρ² y²) dy.
      const top = h + r;
      const steps = 20000;
      let vol = 0;
      let ixx = 0;
      let iyy = 0;
      for (let i = 0; i <= steps; i++) {
        const y = -top + (2 * top * i) / steps;
        const over = Math.abs(y) - h;
        const rho2 = over > 0 ? Math.max(0, r * r - over * over) : r * r;
        const w = i === 0 || i === steps ? 1 : i % 2 === 1 ? 4 : 2;
        vol += w * Math.PI * rho2;
        iyy += (w * Math.PI * rho2 * rho2) / 2;
        ixx += w * (Math.PI * rho2 * rho2 * 0.25 + Math.PI * rho2 * y * y);
      }
      const k = (2 * top) / steps / 3;
      const c = capsuleMassProperties(r, h);
      expect(c.volume).toBeCloseTo(vol * k, 8);
      expect(c.inertia[1]).toBeCloseTo(iyy * k, 8);
      expect(c.inertia[0]).toBeCloseTo(ixx * k, 8);
      expect(c.inertia[2]).toBe(c.inertia[0]);
      expect(c.inertia.slice(3)).toEqual([0, 0, 0]);
    }
  });

  it("capsule equals the sum of its cylinder and a sphere whose halves are moved apart", () => {
    const r = 0.4;
    const h = 0.9;
    const c = capsuleMassProperties(r, h);
    // The two hemispheres are a sphere split at its centre; moving each by ±h along y adds
    // 2 Vh (h² + 2 h ȳ) to the side moments, with ȳ = 3r/8 the hemisphere centroid.
    const sphere = sphereMassProperties(r);
    const cyl = cylinderMassProperties(r, h);
    const side = cyl.inertia[0] + sphere.inertia[0] + sphere.volume * (h * h + 2 * h * ((3 * r) / 8));
    expect(c.inertia[0]).toBeCloseTo(side, 12);
    expect(c.inertia[1]).toBeCloseTo(cyl.inertia[1] + sphere.inertia[1], 12);
    expect(c.volume).toBeCloseTo(cyl.volume + sphere.volume, 12);
  });
});

describe("hullMassProperties", () => {
  it("a box's corners give the box's properties to 1e-12", () => {
    expectClose(hullMassProperties(buildHull(boxCorners(1, 2, 3))), boxMassProperties(1, 2, 3), 1e-12);
    const moved = hullMassProperties(buildHull(boxCorners(0.5, 0.25, 2, [100, -50, 7])));
    expectClose(moved, { ...boxMassProperties(0.5, 0.25, 2), center: [100, -50, 7] }, 1e-12);
  });

  it("moving a hull into its centre-of-mass frame puts the centre at the origin and keeps the tensor", () => {
    const pts = [
      [0, 0, 0],
      [2, 0, 0],
      [0, 1, 0],
      [0, 0, 3],
      [1.5, 1, 2],
    ];
    const hull = buildHull(pts);
    const m = hullMassProperties(hull);
    const moved = transformHull(hull, new Float64Array(m.center.map((v) => -v)), new Float64Array([0, 0, 0, 1]));
    const mm = hullMassProperties(moved);
    expect(mm.volume).toBeCloseTo(m.volume, 13);
    for (let k = 0; k < 3; k++) expect(mm.center[k]).toBeCloseTo(0, 13);
    for (let k = 0; k < 6; k++) expect(mm.inertia[k]).toBeCloseTo(m.inertia[k], 12);
    // Turned into its principal frame, the tensor becomes diagonal with the principal moments.
    const axes = principalAxes(m.inertia);
    const q = axes.rotation;
    const inverse = new Float64Array([-q[0], -q[1], -q[2], q[3]]);
    const principal = hullMassProperties(transformHull(moved, new Float64Array(3), inverse));
    for (let k = 0; k < 3; k++) expect(principal.inertia[k]).toBeCloseTo(axes.moments[k], 12);
    for (let k = 3; k < 6; k++) expect(principal.inertia[k]).toBeCloseTo(0, 12);
  });

  it("a tetrahedron matches Tonon's example", () => {
    // Tonon 2004, section 3 example (density 1): volume 1/6-scaled values from the paper's vertices.
    const pts = [
      [8.33220, -11.86875, 0.93355],
      [0.75523, 5.0, 16.37072],
      [52.61236, 5.0, -5.3858],
      [2.0, 5.0, 3.0],
    ];
    const m = hullMassProperties(buildHull(pts));
    expect(m.center[0]).toBeCloseTo(15.92492, 4);
    expect(m.center[1]).toBeCloseTo(0.78281, 4);
    expect(m.center[2]).toBeCloseTo(3.72962, 4);
    // The paper's a, b, c (moments) and a', b', c' (products, without the tensor's minus sign) per unit density.
    expect(m.inertia[0] / 43520.33257).toBeCloseTo(1, 6);
    expect(m.inertia[1] / 194711.28938).toBeCloseTo(1, 6);
    expect(m.inertia[2] / 191168.76173).toBeCloseTo(1, 6);
    expect(-m.inertia[5] / 4417.66150).toBeCloseTo(1, 6);
    expect(-m.inertia[4] / -46343.16662).toBeCloseTo(1, 6);
    expect(-m.inertia[3] / 11996.20119).toBeCloseTo(1, 6);
  });

  it("converges to the sphere and cylinder closed forms", () => {
    const fibonacciSphere = (count: number) => {
      const pts: number[][] = [];
      for (let i = 0; i < count; i++) {
        const y = 1 - (2 * (i + 0.5)) / count;
        const r = Math.sqrt(1 - y * y);
        const a = i * Math.PI * (3 - Math.sqrt(5));
        pts.push([r * Math.cos(a), y, r * Math.sin(a)]);
      }
      return hullMassProperties(buildHull(pts));
    };
    const exact = sphereMassProperties(1);
    // An inscribed polyhedron loses volume ~ 1/count; the moments (∝ r⁵) lose about 5/3 as much.
    let previous = 1;
    for (const count of [32, 64, 128, 256]) {
      const s = fibonacciSphere(count);
      const error = 1 - s.volume / exact.volume;
      expect(error).toBeGreaterThan(0);
      expect(error).toBeLessThan(previous / 1.6);
      expect(1 - s.inertia[1] / exact.inertia[1]).toBeLessThan(2 * error);
      previous = error;
    }
    expectClose(fibonacciSphere(256), exact, 0.04);
    const cylinder: number[][] = [];
    for (let i = 0; i < 100; i++) {
      const a = (2 * Math.PI * i) / 100;
      cylinder.push([0.5 * Math.cos(a), 1.5, 0.5 * Math.sin(a)], [0.5 * Math.cos(a), -1.5, 0.5 * Math.sin(a)]);
    }
    expectClose(hullMassProperties(buildHull(cylinder)), cylinderMassProperties(0.5, 1.5), 0.005);
  });
});

describe("combineMassProperties", () => {
  it("two boxes side by side make one long box", () => {
    const half = boxMassProperties(1, 0.5, 0.25);
    const both = combineMassProperties([
      { props: half, position: [-1, 3, 0], rotation: [0, 0, 0, 1] },
      { props: half, position: [1, 3, 0], rotation: [0, 0, 0, 1] },
    ]);
    expectClose(both, { ...boxMassProperties(2, 0.5, 0.25), center: [0, 3, 0] }, 1e-14);
  });

  it("turned parts: two boxes stacked along y, one turned 90° about z, equal a tall box", () => {
    const s = Math.SQRT1_2;
    const both = combineMassProperties([
      { props: boxMassProperties(0.5, 1, 0.25), position: [0, -1, 0], rotation: [0, 0, 0, 1] },
      { props: boxMassProperties(1, 0.5, 0.25), position: [0, 1, 0], rotation: [0, 0, s, s] },
    ]);
    expectClose(both, boxMassProperties(0.5, 2, 0.25), 1e-14);
  });

  it("a single turned part gets R I Rᵀ with products of the tensor's sign", () => {
    const q = unit([0.3, -0.5, 0.2, 0.8]);
    const box = boxMassProperties(1, 2, 3);
    const turned = combineMassProperties([{ props: box, position: [5, 6, 7], rotation: q }]);
    expect(turned.center).toEqual([5, 6, 7]);
    const expected = rotatedDiagonal(box.inertia.slice(0, 3), q);
    for (let k = 0; k < 6; k++) expect(turned.inertia[k]).toBeCloseTo(expected[k], 10);
    // And it agrees with the hull of the turned box's corners.
    const r = rotationMatrix(q);
    const corners = boxCorners(1, 2, 3).map(([x, y, z]) => [
      r[0] * x + r[1] * y + r[2] * z,
      r[3] * x + r[4] * y + r[5] * z,
      r[6] * x + r[7] * y + r[8] * z,
    ]);
    const hull = hullMassProperties(buildHull(corners));
    for (let k = 0; k < 6; k++) expect(hull.inertia[k]).toBeCloseTo(expected[k], 9);
  });
});

describe("principalAxes", () => {
  it("returns exactly the identity and the diagonal for a diagonal tensor", () => {
    for (const d of [
      [3, 1, 2],
      [1, 1, 1],
      [5, 5, 0.5],
    ]) {
      const p = principalAxes([...d, 0, 0, 0]);
      expect(p.rotation).toEqual([0, 0, 0, 1]);
      expect(p.moments).toEqual(d);
    }
  });

  it("recovers a rotated box's moments and axes", () => {
    const box = boxMassProperties(0.5, 1, 2);
    for (const q of [unit([0.3, -0.5, 0.2, 0.8]), unit([1, 0, 0, 1]), unit([0.1, 0.9, -0.3, 0.05]), unit([0, 0, 1, 1e-3])]) {
      const tensor = rotatedDiagonal(box.inertia.slice(0, 3), q);
      const p = principalAxes(tensor);
      const r = rotationMatrix(p.rotation);
      expect(det3(r)).toBeCloseTo(1, 14);
      expect(Math.hypot(...p.rotation)).toBeCloseTo(1, 14);
      // I = R diag(moments) Rᵀ
      const back = rotatedDiagonal(p.moments, p.rotation);
      for (let k = 0; k < 6; k++) expect(back[k]).toBeCloseTo(tensor[k], 10);
      // Same moments as the box (in some order) and each axis is ± one of the turned box axes.
      expect([...p.moments].sort((a, b) => a - b)).toEqual(
        [...box.inertia.slice(0, 3)].sort((a, b) => a - b).map((v) => expect.closeTo(v, 10)),
      );
      const boxAxes = rotationMatrix(q);
      for (let j = 0; j < 3; j++) {
        const axis = [r[j], r[3 + j], r[6 + j]];
        const k = box.inertia.findIndex((m, i) => i < 3 && Math.abs(m - p.moments[j]) < 1e-9);
        const dot = axis[0] * boxAxes[k] + axis[1] * boxAxes[3 + k] + axis[2] * boxAxes[6 + k];
        expect(Math.abs(dot)).toBeCloseTo(1, 10);
      }
    }
  });

  it("always gives a proper rotation that diagonalises the tensor", () => {
    let s = 7;
    const rand = () => {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      return s / 4294967296 - 0.5;
    };
    for (let i = 0; i < 200; i++) {
      // Symmetric tensors, including repeated moments and tiny off-diagonals.
      const t =
        i % 3 === 0
          ? rotatedDiagonal([1, 1, 2 + rand()], unit([rand(), rand(), rand(), rand()]))
          : [2 + rand(), 2 + rand(), 2 + rand(), rand() * (i % 3 === 1 ? 1e-12 : 1), rand(), rand() * 0.3];
      const p = principalAxes(t);
      expect(det3(rotationMatrix(p.rotation))).toBeCloseTo(1, 14);
      const back = rotatedDiagonal(p.moments, p.rotation);
      for (let k = 0; k < 6; k++) expect(back[k]).toBeCloseTo(t[k], 12);
    }
  });

  it("the principal moments of a combined body rebuild its tensor", () => {
    const body = combineMassProperties([
      { props: boxMassProperties(1, 0.2, 0.2), position: [0, 0, 0], rotation: [0, 0, 0, 1] },
      { props: sphereMassProperties(0.4), position: [1, 0.5, 0.2], rotation: [0, 0, 0, 1] },
      { props: capsuleMassProperties(0.1, 0.5), position: [-0.5, 0, 0.5], rotation: unit([1, 0, 0, 1]) },
    ]);
    const p = principalAxes(body.inertia);
    const back = rotatedDiagonal(p.moments, p.rotation);
    for (let k = 0; k < 6; k++) expect(back[k]).toBeCloseTo(body.inertia[k], 12);
  });
});
