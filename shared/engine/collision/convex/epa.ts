import { simplex, simplexA, simplexB, simplexW } from "./gjk.ts";
import type { PolyView } from "./poly-view.ts";
import type { ConvexProxy } from "./proxy.ts";
import { supportCore } from "./support.ts";

/**
 * Expanding polytope algorithm (van den Bergen, "Proximity queries and penetration depth computation on
 * 3D game objects", GDC 2001): grows GJK's final simplex inside the Minkowski difference A - B until
 * the face closest to the origin is on its boundary. That face's normal is the minimum translation
 * direction, which is also the contact normal from A to B; its distance the penetration depth.
 * Fixed-size typed arrays; a polytope that would outgrow them stops with the best face so far.
 */

const MAX_VERTS = 64;
const MAX_FACES = 256;
const MAX_HORIZON = 128;
const MAX_ITERATIONS = 48;
/** Converged when a new support point lies within this of the closest face's plane (metres). */
const TOLERANCE = 1e-7;

const W = new Float64Array(3 * MAX_VERTS);
const A = new Float64Array(3 * MAX_VERTS);
const B = new Float64Array(3 * MAX_VERTS);
const faceV = new Int32Array(3 * MAX_FACES);
const faceN = new Float64Array(4 * MAX_FACES);
const faceAlive = new Uint8Array(MAX_FACES);
const horizon = new Int32Array(2 * MAX_HORIZON);
const dir = new Float64Array(3);
const neg = new Float64Array(3);
const sa = new Float64Array(3);
const sb = new Float64Array(3);
const interior = new Float64Array(3);

/** Output: normal xyz (A to B), depth, point on A's core xyz, point on B's core xyz. */
export const epaOut = new Float64Array(10);

let vertCount = 0;
let faceCount = 0;

/** Returns 1 on success (epaOut filled), 0 if the difference is flat (no volume to expand in). */
export function epa(a: ConvexProxy, va: PolyView, b: ConvexProxy, vb: PolyView): number {
  vertCount = simplex.count;
  for (let k = 0; k < 3 * vertCount; k++) {
    W[k] = simplexW[k];
    A[k] = simplexA[k];
    B[k] = simplexB[k];
  }
  if (vertCount === 0) return 0;
  if (!completeTetrahedron(a, va, b, vb)) return 0;
  interior[0] = 0.25 * (W[0] + W[3] + W[6] + W[9]);
  interior[1] = 0.25 * (W[1] + W[4] + W[7] + W[10]);
  interior[2] = 0.25 * (W[2] + W[5] + W[8] + W[11]);
  faceCount = 0;
  addOrientedFace(0, 1, 2);
  addOrientedFace(0, 3, 1);
  addOrientedFace(0, 2, 3);
  addOrientedFace(1, 3, 2);
  let best = 0;
  let previous = -1;
  let previousD = 0;
  for (let iter = 0; iter < MAX_ITERATIONS; iter++) {
    best = -1;
    let bestD = Infinity;
    for (let f = 0; f < faceCount; f++) {
      if (faceAlive[f] && faceN[4 * f + 3] < bestD) {
        bestD = faceN[4 * f + 3];
        best = f;
      }
    }
    if (best < 0) return previous >= 0 ? finish(previous) : 0;
    // The closest distance can only grow; if it shrinks, rounding has broken the polytope's convexity
    // (nearly coplanar faces on a curved surface): keep the last sound face (faces are never reused).
    if (previous >= 0 && bestD < previousD - TOLERANCE) {
      best = previous;
      break;
    }
    previous = best;
    previousD = bestD;
    dir[0] = faceN[4 * best];
    dir[1] = faceN[4 * best + 1];
    dir[2] = faceN[4 * best + 2];
    if (!supportDiff(a, va, b, vb)) break;
    const wx = sa[0] - sb[0];
    const wy = sa[1] - sb[1];
    const wz = sa[2] - sb[2];
    if (dir[0] * wx + dir[1] * wy + dir[2] * wz - bestD <= TOLERANCE) break;
    if (vertCount === MAX_VERTS) break;
    const nv = vertCount++;
    W[3 * nv] = wx;
    W[3 * nv + 1] = wy;
    W[3 * nv + 2] = wz;
    for (let c = 0; c < 3; c++) {
      A[3 * nv + c] = sa[c];
      B[3 * nv + c] = sb[c];
    }
    if (!expand(nv)) break;
  }
  return finish(best);
}

/** sa, sb = supports of A along dir and of B along -dir; false if dir is not finite. */
function supportDiff(a: ConvexProxy, va: PolyView, b: ConvexProxy, vb: PolyView): boolean {
  if (Number.isNaN(dir[0] + dir[1] + dir[2])) return false;
  neg[0] = -dir[0];
  neg[1] = -dir[1];
  neg[2] = -dir[2];
  supportCore(a, va, dir, sa, 0);
  supportCore(b, vb, neg, sb, 0);
  return true;
}

function pushSupport(a: ConvexProxy, va: PolyView, b: ConvexProxy, vb: PolyView): void {
  supportDiff(a, va, b, vb);
  const n = vertCount++;
  W[3 * n] = sa[0] - sb[0];
  W[3 * n + 1] = sa[1] - sb[1];
  W[3 * n + 2] = sa[2] - sb[2];
  for (let c = 0; c < 3; c++) {
    A[3 * n + c] = sa[c];
    B[3 * n + c] = sb[c];
  }
}

/** Squared distance of vertex k from vertex 0. */
function dist2From0(k: number): number {
  const x = W[3 * k] - W[0];
  const y = W[3 * k + 1] - W[1];
  const z = W[3 * k + 2] - W[2];
  return x * x + y * y + z * z;
}

const AXES = new Float64Array([1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1]);
const DEGENERATE = 1e-20;

/** Grows a GJK simplex of 1-3 vertices (the origin on its boundary) to a tetrahedron. */
function completeTetrahedron(a: ConvexProxy, va: PolyView, b: ConvexProxy, vb: PolyView): boolean {
  if (vertCount === 1) {
    for (let k = 0; k < 6 && vertCount === 1; k++) {
      dir[0] = AXES[3 * k];
      dir[1] = AXES[3 * k + 1];
      dir[2] = AXES[3 * k + 2];
      pushSupport(a, va, b, vb);
      if (dist2From0(1) <= DEGENERATE) vertCount = 1;
    }
    if (vertCount === 1) return false;
  }
  if (vertCount === 2) {
    const ex = W[3] - W[0];
    const ey = W[4] - W[1];
    const ez = W[5] - W[2];
    // Two perpendiculars of the segment: e × (the axis least aligned with e), then e × that.
    const ax = Math.abs(ex);
    const ay = Math.abs(ey);
    const az = Math.abs(ez);
    let px: number;
    let py: number;
    let pz: number;
    if (ax <= ay && ax <= az) {
      px = 0;
      py = ez;
      pz = -ey;
    } else if (ay <= az) {
      px = -ez;
      py = 0;
      pz = ex;
    } else {
      px = ey;
      py = -ex;
      pz = 0;
    }
    const qx = ey * pz - ez * py;
    const qy = ez * px - ex * pz;
    const qz = ex * py - ey * px;
    for (let k = 0; k < 4 && vertCount === 2; k++) {
      const s = k & 1 ? -1 : 1;
      dir[0] = s * (k < 2 ? px : qx);
      dir[1] = s * (k < 2 ? py : qy);
      dir[2] = s * (k < 2 ? pz : qz);
      pushSupport(a, va, b, vb);
      const fx = W[6] - W[0];
      const fy = W[7] - W[1];
      const fz = W[8] - W[2];
      const cx = ey * fz - ez * fy;
      const cy = ez * fx - ex * fz;
      const cz = ex * fy - ey * fx;
      if (cx * cx + cy * cy + cz * cz <= DEGENERATE) vertCount = 2;
    }
    if (vertCount === 2) return false;
  }
  if (vertCount === 3) {
    const ex = W[3] - W[0];
    const ey = W[4] - W[1];
    const ez = W[5] - W[2];
    const fx = W[6] - W[0];
    const fy = W[7] - W[1];
    const fz = W[8] - W[2];
    const nx = ey * fz - ez * fy;
    const ny = ez * fx - ex * fz;
    const nz = ex * fy - ey * fx;
    for (let k = 0; k < 2 && vertCount === 3; k++) {
      const s = k === 0 ? 1 : -1;
      dir[0] = s * nx;
      dir[1] = s * ny;
      dir[2] = s * nz;
      pushSupport(a, va, b, vb);
      const vol = nx * (W[9] - W[0]) + ny * (W[10] - W[1]) + nz * (W[11] - W[2]);
      if (vol * vol <= DEGENERATE * (nx * nx + ny * ny + nz * nz)) vertCount = 3;
    }
    if (vertCount === 3) return false;
  }
  return true;
}

/** Adds face (i, j, k), flipped if needed so its normal points away from `interior`. */
function addOrientedFace(i: number, j: number, k: number): void {
  const ex = W[3 * j] - W[3 * i];
  const ey = W[3 * j + 1] - W[3 * i + 1];
  const ez = W[3 * j + 2] - W[3 * i + 2];
  const fx = W[3 * k] - W[3 * i];
  const fy = W[3 * k + 1] - W[3 * i + 1];
  const fz = W[3 * k + 2] - W[3 * i + 2];
  const nx = ey * fz - ez * fy;
  const ny = ez * fx - ex * fz;
  const nz = ex * fy - ey * fx;
  const out = nx * (W[3 * i] - interior[0]) + ny * (W[3 * i + 1] - interior[1]) + nz * (W[3 * i + 2] - interior[2]);
  if (out < 0) addFace(i, k, j);
  else addFace(i, j, k);
}

/** Adds face (i, j, k) with the right-hand-rule normal; false if it is degenerate or there is no room. */
function addFace(i: number, j: number, k: number): boolean {
  if (faceCount === MAX_FACES) return false;
  const ex = W[3 * j] - W[3 * i];
  const ey = W[3 * j + 1] - W[3 * i + 1];
  const ez = W[3 * j + 2] - W[3 * i + 2];
  const fx = W[3 * k] - W[3 * i];
  const fy = W[3 * k + 1] - W[3 * i + 1];
  const fz = W[3 * k + 2] - W[3 * i + 2];
  let nx = ey * fz - ez * fy;
  let ny = ez * fx - ex * fz;
  let nz = ex * fy - ey * fx;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (!(len > 1e-30)) return false;
  nx /= len;
  ny /= len;
  nz /= len;
  const f = faceCount++;
  faceV[3 * f] = i;
  faceV[3 * f + 1] = j;
  faceV[3 * f + 2] = k;
  faceN[4 * f] = nx;
  faceN[4 * f + 1] = ny;
  faceN[4 * f + 2] = nz;
  // Distance of the origin's projection; clamped at 0 (the origin may sit on the face).
  const d = nx * W[3 * i] + ny * W[3 * i + 1] + nz * W[3 * i + 2];
  faceN[4 * f + 3] = d > 0 ? d : 0;
  faceAlive[f] = 1;
  return true;
}

/** Removes the faces vertex `nv` sees and closes the hole with faces to it; false on overflow. */
function expand(nv: number): boolean {
  const wx = W[3 * nv];
  const wy = W[3 * nv + 1];
  const wz = W[3 * nv + 2];
  let edges = 0;
  for (let f = 0; f < faceCount; f++) {
    if (!faceAlive[f]) continue;
    const i = faceV[3 * f];
    const vis = faceN[4 * f] * (wx - W[3 * i]) + faceN[4 * f + 1] * (wy - W[3 * i + 1]) + faceN[4 * f + 2] * (wz - W[3 * i + 2]);
    if (vis <= 0) continue;
    faceAlive[f] = 0;
    for (let e = 0; e < 3; e++) {
      const x = faceV[3 * f + e];
      const y = faceV[3 * f + (e === 2 ? 0 : e + 1)];
      // An edge shared with another visible face appears reversed: both go.
      let found = -1;
      for (let h = 0; h < edges; h++) {
        if (horizon[2 * h] === y && horizon[2 * h + 1] === x) {
          found = h;
          break;
        }
      }
      if (found >= 0) {
        edges--;
        horizon[2 * found] = horizon[2 * edges];
        horizon[2 * found + 1] = horizon[2 * edges + 1];
      } else {
        if (edges === MAX_HORIZON) return false;
        horizon[2 * edges] = x;
        horizon[2 * edges + 1] = y;
        edges++;
      }
    }
  }
  for (let h = 0; h < edges; h++) {
    if (!addFace(horizon[2 * h], horizon[2 * h + 1], nv)) return false;
  }
  return true;
}

/** Writes epaOut from face f: its normal, its distance, and the witness points by barycentric weights. */
function finish(f: number): number {
  if (f < 0) return 0;
  const nx = faceN[4 * f];
  const ny = faceN[4 * f + 1];
  const nz = faceN[4 * f + 2];
  const d = faceN[4 * f + 3];
  const i = faceV[3 * f];
  const j = faceV[3 * f + 1];
  const k = faceV[3 * f + 2];
  // Barycentric coordinates of p = d n in triangle (i, j, k) (Ericson 3.4).
  const px = d * nx - W[3 * i];
  const py = d * ny - W[3 * i + 1];
  const pz = d * nz - W[3 * i + 2];
  const e0x = W[3 * j] - W[3 * i];
  const e0y = W[3 * j + 1] - W[3 * i + 1];
  const e0z = W[3 * j + 2] - W[3 * i + 2];
  const e1x = W[3 * k] - W[3 * i];
  const e1y = W[3 * k + 1] - W[3 * i + 1];
  const e1z = W[3 * k + 2] - W[3 * i + 2];
  const d00 = e0x * e0x + e0y * e0y + e0z * e0z;
  const d01 = e0x * e1x + e0y * e1y + e0z * e1z;
  const d11 = e1x * e1x + e1y * e1y + e1z * e1z;
  const d20 = px * e0x + py * e0y + pz * e0z;
  const d21 = px * e1x + py * e1y + pz * e1z;
  const denom = d00 * d11 - d01 * d01;
  let v = denom > 0 ? (d11 * d20 - d01 * d21) / denom : 0;
  let w = denom > 0 ? (d00 * d21 - d01 * d20) / denom : 0;
  if (v < 0) v = 0;
  if (w < 0) w = 0;
  if (v + w > 1) {
    const s = 1 / (v + w);
    v *= s;
    w *= s;
  }
  const u = 1 - v - w;
  epaOut[0] = nx;
  epaOut[1] = ny;
  epaOut[2] = nz;
  epaOut[3] = d;
  for (let c = 0; c < 3; c++) {
    epaOut[4 + c] = u * A[3 * i + c] + v * A[3 * j + c] + w * A[3 * k + c];
    epaOut[7 + c] = u * B[3 * i + c] + v * B[3 * j + c] + w * B[3 * k + c];
  }
  return 1;
}
