import type { PolyView } from "./poly-view.ts";
import type { ConvexProxy } from "./proxy.ts";
import { supportCore } from "./support.ts";

/**
 * GJK distance between the cores of two convex proxies (Gilbert, Johnson, Keerthi 1988), with the
 * closest point of each simplex to the origin found by Voronoi-region tests (Ericson, Real-Time
 * Collision Detection 5.1.5 and 5.1.6; van den Bergen, "Collision Detection in Interactive 3D
 * Environments" 4.3 for the termination test). Works on the Minkowski difference A - B: w = a - b.
 */

export const GJK_SEPARATED = 0;
export const GJK_OVERLAP = 1;
/** The lower bound on the distance already exceeds `gjkIn[0]`: nothing to report. */
export const GJK_BEYOND = 2;

const MAX_ITERATIONS = 32;
/** Stop when the distance is known to this relative precision. */
const RELATIVE_TOLERANCE = 1e-9;
/** Cores closer than this (metres, squared) count as overlapping (the normal would be noise). */
const OVERLAP_DISTANCE2 = 1e-18;

/** Input: distance beyond which the pair is of no interest (margin plus the radii). */
export const gjkIn = new Float64Array(1);
/** Output: distance, closest point on A's core xyz, closest point on B's core xyz. */
export const gjkOut = new Float64Array(7);

/** The final simplex (for EPA): w = a - b, a and b per vertex, `simplex.count` of them. */
export const simplexW = new Float64Array(12);
export const simplexA = new Float64Array(12);
export const simplexB = new Float64Array(12);
export const simplex = { count: 0 };

const lambda = new Float64Array(4);
const v = new Float64Array(3);
const dir = new Float64Array(3);
const sa = new Float64Array(3);
const sb = new Float64Array(3);
/** Sub-simplex result of the triangle and tetrahedron solvers: lambdas per simplex slot, v, |v|². */
const triLambda = new Float64Array(4);
const bestLambda = new Float64Array(4);
const triV = new Float64Array(4);

/** Runs GJK from the direction between the proxies' centres (startDir[0..2], A minus B). */
export const startDir = new Float64Array(3);

export function gjk(a: ConvexProxy, va: PolyView, b: ConvexProxy, vb: PolyView): number {
  const limit = gjkIn[0];
  v[0] = startDir[0];
  v[1] = startDir[1];
  v[2] = startDir[2];
  if (v[0] === 0 && v[1] === 0 && v[2] === 0) v[0] = 1;
  let count = 0;
  let vv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  for (let iter = 0; iter < MAX_ITERATIONS; iter++) {
    dir[0] = -v[0];
    dir[1] = -v[1];
    dir[2] = -v[2];
    supportCore(a, va, dir, sa, 0);
    supportCore(b, vb, v, sb, 0);
    const wx = sa[0] - sb[0];
    const wy = sa[1] - sb[1];
    const wz = sa[2] - sb[2];
    const vw = v[0] * wx + v[1] * wy + v[2] * wz;
    // v·w / |v| is a lower bound on the distance.
    if (vw > 0 && vw * vw > limit * limit * vv) {
      simplex.count = count;
      return GJK_BEYOND;
    }
    if (count > 0 && vv - vw <= RELATIVE_TOLERANCE * vv) break;
    // A repeated support point means no progress is possible.
    let repeated = false;
    for (let k = 0; k < count; k++) {
      if (simplexW[3 * k] === wx && simplexW[3 * k + 1] === wy && simplexW[3 * k + 2] === wz) repeated = true;
    }
    if (repeated) break;
    simplexW[3 * count] = wx;
    simplexW[3 * count + 1] = wy;
    simplexW[3 * count + 2] = wz;
    simplexA[3 * count] = sa[0];
    simplexA[3 * count + 1] = sa[1];
    simplexA[3 * count + 2] = sa[2];
    simplexB[3 * count] = sb[0];
    simplexB[3 * count + 1] = sb[1];
    simplexB[3 * count + 2] = sb[2];
    count++;
    count = solveSimplex(count);
    if (count === 4) {
      simplex.count = 4;
      return GJK_OVERLAP;
    }
    const nvv = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if (nvv <= OVERLAP_DISTANCE2) {
      simplex.count = count;
      return GJK_OVERLAP;
    }
    if (nvv >= vv && iter > 0) {
      vv = nvv;
      break;
    }
    vv = nvv;
  }
  simplex.count = count;
  let ax = 0;
  let ay = 0;
  let az = 0;
  let bx = 0;
  let by = 0;
  let bz = 0;
  for (let k = 0; k < count; k++) {
    const l = lambda[k];
    ax += l * simplexA[3 * k];
    ay += l * simplexA[3 * k + 1];
    az += l * simplexA[3 * k + 2];
    bx += l * simplexB[3 * k];
    by += l * simplexB[3 * k + 1];
    bz += l * simplexB[3 * k + 2];
  }
  gjkOut[0] = Math.sqrt(vv);
  gjkOut[1] = ax;
  gjkOut[2] = ay;
  gjkOut[3] = az;
  gjkOut[4] = bx;
  gjkOut[5] = by;
  gjkOut[6] = bz;
  return GJK_SEPARATED;
}

/**
 * Replaces the simplex by the smallest sub-simplex containing its point closest to the origin, sets
 * `v` to that point and `lambda` to its barycentric weights; returns the new vertex count (4 when the
 * origin is inside the tetrahedron).
 */
function solveSimplex(count: number): number {
  const W = simplexW;
  if (count === 1) {
    lambda[0] = 1;
    v[0] = W[0];
    v[1] = W[1];
    v[2] = W[2];
    return 1;
  }
  if (count === 2) {
    const ex = W[3] - W[0];
    const ey = W[4] - W[1];
    const ez = W[5] - W[2];
    const ee = ex * ex + ey * ey + ez * ez;
    const t = ee > 0 ? -(W[0] * ex + W[1] * ey + W[2] * ez) / ee : 0;
    if (t <= 0) return keep(0b0001, lambdaOne);
    if (t >= 1) return keep(0b0010, lambdaOne);
    triLambda[0] = 1 - t;
    triLambda[1] = t;
    return keep(0b0011, triLambda);
  }
  if (count === 3) {
    const mask = closestOnTriangle(0, 1, 2);
    return keep(mask, triLambda);
  }
  // Tetrahedron: the origin is inside unless some face's plane separates it from the opposite vertex.
  let bestMask = 0;
  let best = Infinity;
  for (let f = 0; f < 4; f++) {
    const i0 = f === 0 ? 1 : 0;
    const i1 = f <= 1 ? 2 : 1;
    const i2 = f <= 2 ? 3 : 2;
    if (!originOutside(i0, i1, i2, f)) continue;
    const mask = closestOnTriangle(i0, i1, i2);
    if (triV[3] < best) {
      best = triV[3];
      bestMask = mask;
      for (let k = 0; k < 4; k++) bestLambda[k] = triLambda[k];
    }
  }
  if (bestMask === 0) return 4;
  return keep(bestMask, bestLambda);
}

const lambdaOne = new Float64Array([1, 1, 1, 1]);

/** Compacts the simplex to the vertices in `mask` with weights w[slot]; recomputes v. */
function keep(mask: number, w: Float64Array): number {
  let n = 0;
  let vx = 0;
  let vy = 0;
  let vz = 0;
  for (let k = 0; k < 4; k++) {
    if ((mask & (1 << k)) === 0) continue;
    if (n !== k) {
      for (let c = 0; c < 3; c++) {
        simplexW[3 * n + c] = simplexW[3 * k + c];
        simplexA[3 * n + c] = simplexA[3 * k + c];
        simplexB[3 * n + c] = simplexB[3 * k + c];
      }
    }
    const l = w[k];
    lambda[n] = l;
    vx += l * simplexW[3 * n];
    vy += l * simplexW[3 * n + 1];
    vz += l * simplexW[3 * n + 2];
    n++;
  }
  v[0] = vx;
  v[1] = vy;
  v[2] = vz;
  return n;
}

/** True if the plane of triangle (i0, i1, i2) has the origin and vertex `o` strictly on opposite sides (or `o` on it). */
function originOutside(i0: number, i1: number, i2: number, o: number): boolean {
  const W = simplexW;
  const ax = W[3 * i0];
  const ay = W[3 * i0 + 1];
  const az = W[3 * i0 + 2];
  const bx = W[3 * i1] - ax;
  const by = W[3 * i1 + 1] - ay;
  const bz = W[3 * i1 + 2] - az;
  const cx = W[3 * i2] - ax;
  const cy = W[3 * i2 + 1] - ay;
  const cz = W[3 * i2 + 2] - az;
  const nx = by * cz - bz * cy;
  const ny = bz * cx - bx * cz;
  const nz = bx * cy - by * cx;
  const signP = -(nx * ax + ny * ay + nz * az);
  const signD = nx * (W[3 * o] - ax) + ny * (W[3 * o + 1] - ay) + nz * (W[3 * o + 2] - az);
  return signD === 0 || signP * signD < 0;
}

/**
 * Closest point of triangle (i0, i1, i2) to the origin (Ericson 5.1.5): weights into triLambda by
 * slot, the point and its squared length into triV; returns the mask of slots with non-zero weight.
 */
function closestOnTriangle(i0: number, i1: number, i2: number): number {
  const W = simplexW;
  const ax = W[3 * i0];
  const ay = W[3 * i0 + 1];
  const az = W[3 * i0 + 2];
  const abx = W[3 * i1] - ax;
  const aby = W[3 * i1 + 1] - ay;
  const abz = W[3 * i1 + 2] - az;
  const acx = W[3 * i2] - ax;
  const acy = W[3 * i2 + 1] - ay;
  const acz = W[3 * i2 + 2] - az;
  triLambda[0] = triLambda[1] = triLambda[2] = triLambda[3] = 0;
  const d1 = -(abx * ax + aby * ay + abz * az);
  const d2 = -(acx * ax + acy * ay + acz * az);
  if (d1 <= 0 && d2 <= 0) return vertexResult(i0);
  const bx = W[3 * i1];
  const by = W[3 * i1 + 1];
  const bz = W[3 * i1 + 2];
  const d3 = -(abx * bx + aby * by + abz * bz);
  const d4 = -(acx * bx + acy * by + acz * bz);
  if (d3 >= 0 && d4 <= d3) return vertexResult(i1);
  const vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    edgeT[0] = d1 / (d1 - d3);
    return edgeResult(i0, i1);
  }
  const cx = W[3 * i2];
  const cy = W[3 * i2 + 1];
  const cz = W[3 * i2 + 2];
  const d5 = -(abx * cx + aby * cy + abz * cz);
  const d6 = -(acx * cx + acy * cy + acz * cz);
  if (d6 >= 0 && d5 <= d6) return vertexResult(i2);
  const vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    edgeT[0] = d2 / (d2 - d6);
    return edgeResult(i0, i2);
  }
  const va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
    edgeT[0] = (d4 - d3) / (d4 - d3 + (d5 - d6));
    return edgeResult(i1, i2);
  }
  const denom = 1 / (va + vb + vc);
  const lv = vb * denom;
  const lw = vc * denom;
  triLambda[i0] = 1 - lv - lw;
  triLambda[i1] = lv;
  triLambda[i2] = lw;
  const px = ax + abx * lv + acx * lw;
  const py = ay + aby * lv + acy * lw;
  const pz = az + abz * lv + acz * lw;
  triV[0] = px;
  triV[1] = py;
  triV[2] = pz;
  triV[3] = px * px + py * py + pz * pz;
  return (1 << i0) | (1 << i1) | (1 << i2);
}

function vertexResult(i: number): number {
  triLambda[i] = 1;
  const x = simplexW[3 * i];
  const y = simplexW[3 * i + 1];
  const z = simplexW[3 * i + 2];
  triV[0] = x;
  triV[1] = y;
  triV[2] = z;
  triV[3] = x * x + y * y + z * z;
  return 1 << i;
}

/** Parameter along the edge for edgeResult (a scratch slot: doubles passed as arguments get boxed). */
const edgeT = new Float64Array(1);

function edgeResult(i: number, j: number): number {
  const t = edgeT[0];
  triLambda[i] = 1 - t;
  triLambda[j] = t;
  const x = simplexW[3 * i] + t * (simplexW[3 * j] - simplexW[3 * i]);
  const y = simplexW[3 * i + 1] + t * (simplexW[3 * j + 1] - simplexW[3 * i + 1]);
  const z = simplexW[3 * i + 2] + t * (simplexW[3 * j + 2] - simplexW[3 * i + 2]);
  triV[0] = x;
  triV[1] = y;
  triV[2] = z;
  triV[3] = x * x + y * y + z * z;
  return (1 << i) | (1 << j);
}

/**
 * Closest points of segments P1Q1 and P2Q2 (Ericson 5.1.9). Input seg[0..11]: p1, q1, p2, q2 (a point
 * is a segment with p = q). Output segOut: s, t (parameters), c1 xyz, c2 xyz.
 */
export const seg = new Float64Array(12);
export const segOut = new Float64Array(8);

export function closestSegments(): void {
  const d1x = seg[3] - seg[0];
  const d1y = seg[4] - seg[1];
  const d1z = seg[5] - seg[2];
  const d2x = seg[9] - seg[6];
  const d2y = seg[10] - seg[7];
  const d2z = seg[11] - seg[8];
  const rx = seg[0] - seg[6];
  const ry = seg[1] - seg[7];
  const rz = seg[2] - seg[8];
  const a = d1x * d1x + d1y * d1y + d1z * d1z;
  const e = d2x * d2x + d2y * d2y + d2z * d2z;
  const f = d2x * rx + d2y * ry + d2z * rz;
  let s = 0;
  let t = 0;
  const EPS = 1e-24;
  if (a <= EPS && e <= EPS) {
    s = 0;
    t = 0;
  } else if (a <= EPS) {
    s = 0;
    t = f / e;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
  } else {
    const c = d1x * rx + d1y * ry + d1z * rz;
    if (e <= EPS) {
      t = 0;
      s = -c / a;
      s = s < 0 ? 0 : s > 1 ? 1 : s;
    } else {
      const b = d1x * d2x + d1y * d2y + d1z * d2z;
      const denom = a * e - b * b;
      s = denom > 0 ? (b * f - c * e) / denom : 0;
      s = s < 0 ? 0 : s > 1 ? 1 : s;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = -c / a;
        s = s < 0 ? 0 : s > 1 ? 1 : s;
      } else if (t > 1) {
        t = 1;
        s = (b - c) / a;
        s = s < 0 ? 0 : s > 1 ? 1 : s;
      }
    }
  }
  segOut[0] = s;
  segOut[1] = t;
  segOut[2] = seg[0] + s * d1x;
  segOut[3] = seg[1] + s * d1y;
  segOut[4] = seg[2] + s * d1z;
  segOut[5] = seg[6] + t * d2x;
  segOut[6] = seg[7] + t * d2y;
  segOut[7] = seg[8] + t * d2z;
}
