import type { ManifoldOut } from "../manifold.ts";
import { type ConvexProxy, PROXY_BOX, PROXY_CYLINDER, PROXY_TRIANGLE } from "./proxy.ts";

/**
 * A sphere against a box, cylinder or triangle in closed form: the other shape's point closest to the
 * centre (Ericson, Real-Time Collision Detection 5.1.3 for the box, 5.1.5 for the triangle; clamping in
 * the cylinder's frame), or for a centre inside a box or cylinder the nearest way out. These are the
 * commonest pairs of a mixed scene, and the exact answer is cheaper than GJK (and, deep inside the
 * round cylinder, than EPA's polytope approximation).
 */

/** Closest point on the other shape xyz, then the unit direction from it towards the centre xyz. */
const res = new Float64Array(6);
/** Local-frame point and direction, for `toWorld`. */
const local = new Float64Array(6);

/** Returns 1 and writes `out` (count 0 or 1) if the pair is handled here, else 0. */
export function sphereClosest(out: ManifoldOut, sphere: ConvexProxy, other: ConvexProxy, sphereIsA: boolean, mix: number): number {
  const kind = other.kind;
  const c = sphere.pos;
  if (kind === PROXY_TRIANGLE) triangleClosest(other.tri, c);
  else if (kind === PROXY_BOX) boxClosest(other, c);
  else if (kind === PROXY_CYLINDER) cylinderClosest(other, c);
  else return 0;
  const mx = res[3];
  const my = res[4];
  const mz = res[5];
  const r = sphere.radius;
  const s = (c[0] - res[0]) * mx + (c[1] - res[1]) * my + (c[2] - res[2]) * mz - r;
  out.count = 0;
  if (s > out.margin) return 1;
  const sphereSide = sphereIsA ? out.pointA : out.pointB;
  const otherSide = sphereIsA ? out.pointB : out.pointA;
  sphereSide[0] = c[0] - r * mx;
  sphereSide[1] = c[1] - r * my;
  sphereSide[2] = c[2] - r * mz;
  otherSide[0] = res[0];
  otherSide[1] = res[1];
  otherSide[2] = res[2];
  // The normal runs from A to B: towards the sphere when it is B. (0 - x keeps zeros positive.)
  out.normal[0] = sphereIsA ? 0 - mx : mx;
  out.normal[1] = sphereIsA ? 0 - my : my;
  out.normal[2] = sphereIsA ? 0 - mz : mz;
  out.separation[0] = s;
  out.id[0] = (3 << 28) ^ mix;
  out.count = 1;
  return 1;
}

/** res = closest point of the box to c, and the way out (the nearest face's normal when c is inside). */
function boxClosest(b: ConvexProxy, c: Float64Array): void {
  const R = b.rot;
  const h = b.half;
  const dx = c[0] - b.pos[0];
  const dy = c[1] - b.pos[1];
  const dz = c[2] - b.pos[2];
  const x = R[0] * dx + R[3] * dy + R[6] * dz;
  const y = R[1] * dx + R[4] * dy + R[7] * dz;
  const z = R[2] * dx + R[5] * dy + R[8] * dz;
  let qx = x < -h[0] ? -h[0] : x > h[0] ? h[0] : x;
  let qy = y < -h[1] ? -h[1] : y > h[1] ? h[1] : y;
  let qz = z < -h[2] ? -h[2] : z > h[2] ? h[2] : z;
  let mx = x - qx;
  let my = y - qy;
  let mz = z - qz;
  const d2 = mx * mx + my * my + mz * mz;
  if (d2 > 0) {
    const inv = 1 / Math.sqrt(d2);
    mx *= inv;
    my *= inv;
    mz *= inv;
  } else {
    // Inside: out through the nearest face.
    const fx = h[0] - Math.abs(x);
    const fy = h[1] - Math.abs(y);
    const fz = h[2] - Math.abs(z);
    mx = my = mz = 0;
    if (fx <= fy && fx <= fz) {
      mx = x < 0 ? -1 : 1;
      qx = mx * h[0];
    } else if (fy <= fz) {
      my = y < 0 ? -1 : 1;
      qy = my * h[1];
    } else {
      mz = z < 0 ? -1 : 1;
      qz = mz * h[2];
    }
  }
  local[0] = qx;
  local[1] = qy;
  local[2] = qz;
  local[3] = mx;
  local[4] = my;
  local[5] = mz;
  toWorld(b);
}

/** res = closest point of the cylinder to c, and the way out (the nearer of cap and side when inside). */
function cylinderClosest(b: ConvexProxy, c: Float64Array): void {
  const R = b.rot;
  const h = b.half[1];
  const r = b.radius;
  const dx = c[0] - b.pos[0];
  const dy = c[1] - b.pos[1];
  const dz = c[2] - b.pos[2];
  const x = R[0] * dx + R[3] * dy + R[6] * dz;
  const y = R[1] * dx + R[4] * dy + R[7] * dz;
  const z = R[2] * dx + R[5] * dy + R[8] * dz;
  const rho = Math.sqrt(x * x + z * z);
  let qx = x;
  let qz = z;
  if (rho > r) {
    qx = (x * r) / rho;
    qz = (z * r) / rho;
  }
  let qy = y < -h ? -h : y > h ? h : y;
  let mx = x - qx;
  let my = y - qy;
  let mz = z - qz;
  const d2 = mx * mx + my * my + mz * mz;
  if (d2 > 0) {
    const inv = 1 / Math.sqrt(d2);
    mx *= inv;
    my *= inv;
    mz *= inv;
  } else if (h - Math.abs(y) <= r - rho) {
    mx = mz = 0;
    my = y < 0 ? -1 : 1;
    qy = my * h;
  } else {
    my = 0;
    if (rho > 0) {
      mx = x / rho;
      mz = z / rho;
    } else {
      mx = 1;
      mz = 0;
    }
    qx = mx * r;
    qz = mz * r;
  }
  local[0] = qx;
  local[1] = qy;
  local[2] = qz;
  local[3] = mx;
  local[4] = my;
  local[5] = mz;
  toWorld(b);
}

/** res = the local point and direction in `local` taken to world space by proxy b's pose. */
function toWorld(b: ConvexProxy): void {
  const qx = local[0];
  const qy = local[1];
  const qz = local[2];
  const mx = local[3];
  const my = local[4];
  const mz = local[5];
  const R = b.rot;
  const p = b.pos;
  res[0] = p[0] + R[0] * qx + R[1] * qy + R[2] * qz;
  res[1] = p[1] + R[3] * qx + R[4] * qy + R[5] * qz;
  res[2] = p[2] + R[6] * qx + R[7] * qy + R[8] * qz;
  res[3] = R[0] * mx + R[1] * my + R[2] * mz;
  res[4] = R[3] * mx + R[4] * my + R[5] * mz;
  res[5] = R[6] * mx + R[7] * my + R[8] * mz;
}

/**
 * res = closest point of triangle t to c (Ericson 5.1.5) and the direction to c; a centre on the
 * triangle leaves along the face normal.
 */
function triangleClosest(t: Float64Array, c: Float64Array): void {
  const ax = t[0];
  const ay = t[1];
  const az = t[2];
  const abx = t[3] - ax;
  const aby = t[4] - ay;
  const abz = t[5] - az;
  const acx = t[6] - ax;
  const acy = t[7] - ay;
  const acz = t[8] - az;
  const apx = c[0] - ax;
  const apy = c[1] - ay;
  const apz = c[2] - az;
  let u = 0;
  let v = 0;
  const d1 = abx * apx + aby * apy + abz * apz;
  const d2 = acx * apx + acy * apy + acz * apz;
  if (d1 > 0 || d2 > 0) {
    const bpx = c[0] - t[3];
    const bpy = c[1] - t[4];
    const bpz = c[2] - t[5];
    const d3 = abx * bpx + aby * bpy + abz * bpz;
    const d4 = acx * bpx + acy * bpy + acz * bpz;
    const cpx = c[0] - t[6];
    const cpy = c[1] - t[7];
    const cpz = c[2] - t[8];
    const d5 = abx * cpx + aby * cpy + abz * cpz;
    const d6 = acx * cpx + acy * cpy + acz * cpz;
    const vc = d1 * d4 - d3 * d2;
    const vb = d5 * d2 - d1 * d6;
    const va = d3 * d6 - d5 * d4;
    if (d3 >= 0 && d4 <= d3) u = 1;
    else if (vc <= 0 && d1 >= 0 && d3 <= 0) u = d1 / (d1 - d3);
    else if (d6 >= 0 && d5 <= d6) v = 1;
    else if (vb <= 0 && d2 >= 0 && d6 <= 0) v = d2 / (d2 - d6);
    else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
      v = (d4 - d3) / (d4 - d3 + (d5 - d6));
      u = 1 - v;
    } else {
      // Above the face: straight down its normal (exactly the face normal, as the manifold wants).
      let nx = aby * acz - abz * acy;
      let ny = abz * acx - abx * acz;
      let nz = abx * acy - aby * acx;
      const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
      if (len > 0) {
        const h = (apx * nx + apy * ny + apz * nz) / len;
        const sg = h < 0 ? -1 : 1;
        nx = (sg * nx) / len;
        ny = (sg * ny) / len;
        nz = (sg * nz) / len;
        const d = sg * h;
        res[0] = c[0] - d * nx;
        res[1] = c[1] - d * ny;
        res[2] = c[2] - d * nz;
        // 0 + x: a -0 component becomes +0.
        res[3] = 0 + nx;
        res[4] = 0 + ny;
        res[5] = 0 + nz;
        return;
      }
    }
  }
  const qx = ax + abx * u + acx * v;
  const qy = ay + aby * u + acy * v;
  const qz = az + abz * u + acz * v;
  res[0] = qx;
  res[1] = qy;
  res[2] = qz;
  let mx = c[0] - qx;
  let my = c[1] - qy;
  let mz = c[2] - qz;
  let len = Math.sqrt(mx * mx + my * my + mz * mz);
  if (len === 0) {
    mx = aby * acz - abz * acy;
    my = abz * acx - abx * acz;
    mz = abx * acy - aby * acx;
    len = Math.sqrt(mx * mx + my * my + mz * mz);
    if (len === 0) {
      mx = 0;
      my = 1;
      mz = 0;
      len = 1;
    }
  }
  res[3] = mx / len;
  res[4] = my / len;
  res[5] = mz / len;
}
