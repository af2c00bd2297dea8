/**
 * Solid mass properties at density 1 (so mass = volume): volume, centre of mass and the inertia tensor
 * about that centre, for the primitive shapes, convex hulls and unions of placed parts, plus the
 * principal axes of a tensor. Creation-time code; only + - * /, Math.sqrt and Math.PI, so every
 * JavaScript engine computes the same bits.
 */
import type { ConvexHull } from "./convex-hull.ts";

/**
 * Inertia is [xx, yy, zz, xy, xz, yz] of the tensor [[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]] about
 * `center`, in the shape's frame: products carry the tensor's sign, xy = -∫ x y dV.
 */
export interface MassProperties {
  volume: number;
  center: [number, number, number];
  inertia: [number, number, number, number, number, number];
}

export function sphereMassProperties(r: number): MassProperties {
  const volume = (4 / 3) * Math.PI * r * r * r;
  const i = 0.4 * volume * r * r;
  return { volume, center: [0, 0, 0], inertia: [i, i, i, 0, 0, 0] };
}

export function boxMassProperties(hx: number, hy: number, hz: number): MassProperties {
  const volume = 8 * hx * hy * hz;
  const k = volume / 3;
  return {
    volume,
    center: [0, 0, 0],
    inertia: [k * (hy * hy + hz * hz), k * (hx * hx + hz * hz), k * (hx * hx + hy * hy), 0, 0, 0],
  };
}

/** Solid cylinder of radius r along y from -halfHeight to +halfHeight. */
export function cylinderMassProperties(r: number, halfHeight: number): MassProperties {
  const volume = 2 * Math.PI * r * r * halfHeight;
  const side = volume * (r * r / 4 + (halfHeight * halfHeight) / 3);
  return { volume, center: [0, 0, 0], inertia: [side, 0.5 * volume * r * r, side, 0, 0, 0] };
}

/**
 * Capsule along y: a cylinder of half height h plus two hemispheres of radius r. About its diameter a
 * hemisphere has 2/5 V r² at the sphere's centre; moved to its own centroid (3r/8 out) it loses
 * V (3r/8)², then gains V (h + 3r/8)² moved to the capsule's centre: V (2/5 r² + h² + 3/4 h r).
 */
export function capsuleMassProperties(r: number, halfHeight: number): MassProperties {
  const h = halfHeight;
  const cylinder = 2 * Math.PI * r * r * h;
  const sphere = (4 / 3) * Math.PI * r * r * r;
  const volume = cylinder + sphere;
  const side = cylinder * (r * r / 4 + (h * h) / 3) + sphere * (0.4 * r * r + h * h + 0.75 * h * r);
  const axial = 0.5 * cylinder * r * r + 0.4 * sphere * r * r;
  return { volume, center: [0, 0, 0], inertia: [side, axial, side, 0, 0, 0] };
}

/**
 * Exact mass properties of a convex polyhedron: tetrahedra from the vertex mean to each face's fan,
 * each contributing its second moment C = det/120 (aaᵀ + bbᵀ + ccᵀ + (a+b+c)(a+b+c)ᵀ) for edge vectors
 * a, b, c from the apex (Blow & Binstock, "How to find the inertia tensor (or other mass properties) of a
 * 3D solid body represented by a triangle mesh"; the same integrals as Tonon 2004). Everything is taken
 * relative to the vertex mean, which keeps the sums small for hulls far from their frame's origin.
 */
export function hullMassProperties(hull: ConvexHull): MassProperties {
  const v = hull.vertices;
  const nv = hull.vertexCount;
  let ox = 0;
  let oy = 0;
  let oz = 0;
  for (let i = 0; i < nv; i++) {
    ox += v[i * 3];
    oy += v[i * 3 + 1];
    oz += v[i * 3 + 2];
  }
  ox /= nv;
  oy /= nv;
  oz /= nv;
  let six = 0; // 6 × volume
  let mx = 0; // 24 × first moment
  let my = 0;
  let mz = 0;
  let cxx = 0; // 120 × second moments
  let cyy = 0;
  let czz = 0;
  let cxy = 0;
  let cxz = 0;
  let cyz = 0;
  for (let f = 0; f < hull.faceCount; f++) {
    const start = hull.faceStart[f];
    const end = hull.faceStart[f + 1];
    const p0 = hull.faceVertices[start] * 3;
    const ax = v[p0] - ox;
    const ay = v[p0 + 1] - oy;
    const az = v[p0 + 2] - oz;
    for (let k = start + 1; k + 1 < end; k++) {
      const p1 = hull.faceVertices[k] * 3;
      const p2 = hull.faceVertices[k + 1] * 3;
      const bx = v[p1] - ox;
      const by = v[p1 + 1] - oy;
      const bz = v[p1 + 2] - oz;
      const cx = v[p2] - ox;
      const cy = v[p2 + 1] - oy;
      const cz = v[p2 + 2] - oz;
      const det = ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
      const sx = ax + bx + cx;
      const sy = ay + by + cy;
      const sz = az + bz + cz;
      six += det;
      mx += det * sx;
      my += det * sy;
      mz += det * sz;
      cxx += det * (ax * ax + bx * bx + cx * cx + sx * sx);
      cyy += det * (ay * ay + by * by + cy * cy + sy * sy);
      czz += det * (az * az + bz * bz + cz * cz + sz * sz);
      cxy += det * (ax * ay + bx * by + cx * cy + sx * sy);
      cxz += det * (ax * az + bx * bz + cx * cz + sx * sz);
      cyz += det * (ay * az + by * bz + cy * cz + sy * sz);
    }
  }
  const volume = six / 6;
  // Centroid offset from the vertex mean: (first moment) / volume = (mx / 24) / (six / 6).
  const dx = mx / (4 * six);
  const dy = my / (4 * six);
  const dz = mz / (4 * six);
  // Second moments about the centroid: C - V d dᵀ.
  const xx = cxx / 120 - volume * dx * dx;
  const yy = cyy / 120 - volume * dy * dy;
  const zz = czz / 120 - volume * dz * dz;
  const xy = cxy / 120 - volume * dx * dy;
  const xz = cxz / 120 - volume * dx * dz;
  const yz = cyz / 120 - volume * dy * dz;
  return {
    volume,
    center: [ox + dx, oy + dy, oz + dz],
    inertia: [yy + zz, xx + zz, xx + yy, -xy, -xz, -yz],
  };
}

/** Row-major rotation matrix of the unit quaternion [x, y, z, w] (world = R · local). */
function rotationMatrix(q: readonly number[]): number[] {
  const x = q[0];
  const y = q[1];
  const z = q[2];
  const w = q[3];
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

/** Full row-major 3x3 of the 6-entry tensor. */
function fullTensor(t: readonly number[]): number[] {
  return [t[0], t[3], t[4], t[3], t[1], t[5], t[4], t[5], t[2]];
}

/**
 * The union of parts, each placed at `position` with `rotation` ([x, y, z, w]) in a common frame, all at
 * density 1: volumes add, the centre is the volume-weighted mean, and each tensor is turned (R I Rᵀ) and
 * moved to the common centre with the parallel-axis theorem, I + V (|d|² E - d dᵀ).
 */
export function combineMassProperties(
  parts: readonly { props: MassProperties; position: readonly number[]; rotation: readonly number[] }[],
): MassProperties {
  let volume = 0;
  let cx = 0;
  let cy = 0;
  let cz = 0;
  const centres: number[][] = [];
  const rotations: number[][] = [];
  for (const part of parts) {
    const r = rotationMatrix(part.rotation);
    const c = part.props.center;
    const p = [
      r[0] * c[0] + r[1] * c[1] + r[2] * c[2] + part.position[0],
      r[3] * c[0] + r[4] * c[1] + r[5] * c[2] + part.position[1],
      r[6] * c[0] + r[7] * c[1] + r[8] * c[2] + part.position[2],
    ];
    centres.push(p);
    rotations.push(r);
    const vol = part.props.volume;
    volume += vol;
    cx += vol * p[0];
    cy += vol * p[1];
    cz += vol * p[2];
  }
  if (volume > 0) {
    cx /= volume;
    cy /= volume;
    cz /= volume;
  }
  const sum = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  for (let k = 0; k < parts.length; k++) {
    const r = rotations[k];
    const t = fullTensor(parts[k].props.inertia);
    // R I Rᵀ
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) {
        let s = 0;
        for (let a = 0; a < 3; a++) {
          for (let b = 0; b < 3; b++) s += r[i * 3 + a] * t[a * 3 + b] * r[j * 3 + b];
        }
        sum[i * 3 + j] += s;
      }
    }
    const vol = parts[k].props.volume;
    const dx = centres[k][0] - cx;
    const dy = centres[k][1] - cy;
    const dz = centres[k][2] - cz;
    sum[0] += vol * (dy * dy + dz * dz);
    sum[4] += vol * (dx * dx + dz * dz);
    sum[8] += vol * (dx * dx + dy * dy);
    sum[1] -= vol * dx * dy;
    sum[2] -= vol * dx * dz;
    sum[5] -= vol * dy * dz;
  }
  return {
    volume,
    center: [cx, cy, cz],
    // The rotated tensor is symmetric up to rounding; average the two halves so it is exactly.
    inertia: [sum[0], sum[4], sum[8], 0.5 * (sum[1] + sum[3]), 0.5 * (sum[2] + sum[6]), 0.5 * (sum[5] + sum[7])],
  };
}

const JACOBI_MAX_SWEEPS = 50;
/** Off-diagonal norm, relative to the diagonal's, at which the tensor counts as diagonal. */
const JACOBI_TOLERANCE = 1e-15;

/**
 * Eigen decomposition of the symmetric tensor [xx, yy, zz, xy, xz, yz] by cyclic Jacobi rotations (Golub
 * & Van Loan, "Matrix Computations" 8.5; the rotation from t = sgn(θ) / (|θ| + sqrt(θ² + 1)) avoids
 * trigonometry). Returns the moments and a unit quaternion q whose matrix's columns are the principal
 * axes: I = R(q) diag(moments) R(q)ᵀ, det R = +1. Axes are never sorted, so the result moves continuously
 * with the tensor; an already diagonal tensor gives exactly the identity and its own diagonal.
 */
export function principalAxes(inertia: readonly number[]): {
  moments: [number, number, number];
  rotation: [number, number, number, number];
} {
  const a = fullTensor(inertia);
  const v = [1, 0, 0, 0, 1, 0, 0, 0, 1];
  for (let sweep = 0; sweep < JACOBI_MAX_SWEEPS; sweep++) {
    const off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5];
    const diag = a[0] * a[0] + a[4] * a[4] + a[8] * a[8];
    if (off === 0 || off <= JACOBI_TOLERANCE * JACOBI_TOLERANCE * diag) break;
    jacobiRotate(a, v, 0, 1);
    jacobiRotate(a, v, 0, 2);
    jacobiRotate(a, v, 1, 2);
  }
  // Products of plane rotations have det +1 already; guard against rounding anyway.
  const det =
    v[0] * (v[4] * v[8] - v[5] * v[7]) - v[1] * (v[3] * v[8] - v[5] * v[6]) + v[2] * (v[3] * v[7] - v[4] * v[6]);
  if (det < 0) {
    v[2] = -v[2];
    v[5] = -v[5];
    v[8] = -v[8];
  }
  return { moments: [a[0], a[4], a[8]], rotation: quatFromMatrix(v) };
}

/** One Jacobi rotation zeroing a[p][q] of the row-major symmetric a; accumulates v ← v J. */
function jacobiRotate(a: number[], v: number[], p: number, q: number): void {
  const apq = a[p * 3 + q];
  if (apq === 0) return;
  const app = a[p * 3 + p];
  const aqq = a[q * 3 + q];
  const theta = (aqq - app) / (2 * apq);
  const absTheta = Math.abs(theta);
  // For huge θ, θ² would overflow; t → 1 / (2θ) there.
  let t = absTheta > 1e150 ? 1 / (2 * absTheta) : 1 / (absTheta + Math.sqrt(theta * theta + 1));
  if (theta < 0) t = -t;
  const c = 1 / Math.sqrt(t * t + 1);
  const s = t * c;
  a[p * 3 + p] = app - t * apq;
  a[q * 3 + q] = aqq + t * apq;
  a[p * 3 + q] = 0;
  a[q * 3 + p] = 0;
  const r = 3 - p - q;
  const arp = a[r * 3 + p];
  const arq = a[r * 3 + q];
  const nrp = c * arp - s * arq;
  const nrq = s * arp + c * arq;
  a[r * 3 + p] = nrp;
  a[p * 3 + r] = nrp;
  a[r * 3 + q] = nrq;
  a[q * 3 + r] = nrq;
  for (let i = 0; i < 3; i++) {
    const vip = v[i * 3 + p];
    const viq = v[i * 3 + q];
    v[i * 3 + p] = c * vip - s * viq;
    v[i * 3 + q] = s * vip + c * viq;
  }
}

/**
 * Unit quaternion [x, y, z, w] of a row-major rotation matrix by the trace method (Shepperd 1978: take
 * the square root of the largest of w², x², y², z² for accuracy), normalised, with w >= 0.
 */
function quatFromMatrix(m: number[]): [number, number, number, number] {
  const trace = m[0] + m[4] + m[8];
  let x: number;
  let y: number;
  let z: number;
  let w: number;
  if (trace > 0) {
    const s = 2 * Math.sqrt(trace + 1);
    w = 0.25 * s;
    x = (m[7] - m[5]) / s;
    y = (m[2] - m[6]) / s;
    z = (m[3] - m[1]) / s;
  } else if (m[0] >= m[4] && m[0] >= m[8]) {
    const s = 2 * Math.sqrt(1 + m[0] - m[4] - m[8]);
    x = 0.25 * s;
    w = (m[7] - m[5]) / s;
    y = (m[1] + m[3]) / s;
    z = (m[2] + m[6]) / s;
  } else if (m[4] >= m[8]) {
    const s = 2 * Math.sqrt(1 + m[4] - m[0] - m[8]);
    y = 0.25 * s;
    w = (m[2] - m[6]) / s;
    x = (m[1] + m[3]) / s;
    z = (m[5] + m[7]) / s;
  } else {
    const s = 2 * Math.sqrt(1 + m[8] - m[0] - m[4]);
    z = 0.25 * s;
    w = (m[3] - m[1]) / s;
    x = (m[2] + m[6]) / s;
    y = (m[5] + m[7]) / s;
  }
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  const sign = w < 0 ? -1 / len : 1 / len;
  return [x * sign, y * sign, z * sign, w * sign];
}
