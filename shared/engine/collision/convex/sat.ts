import type { PolyView } from "./poly-view.ts";
import { PROXY_BOX, PROXY_HULL, PROXY_TRIANGLE } from "./proxy.ts";

/**
 * Separating axis test between two polytopes (boxes, hulls, triangles) in world space: the face normals
 * of both, then edge-edge cross products. Between two solids the edge pairs are pruned to those that
 * form a face of the Minkowski difference, whose separation then needs only one point of each edge
 * (Gregorius, GDC 2013 "The separating axis test between convex polyhedra"); with a triangle every
 * (active) edge pair is tested by projecting both shapes, which a flat triangle needs anyway.
 */

export const SAT_FACE_A = 0;
export const SAT_FACE_B = 1;
export const SAT_EDGE = 2;

/** Input: satIn[0] = margin (the test stops as soon as an axis separates by more). */
export const satIn = new Float64Array(1);
/** Output: axis xyz (the contact normal, from A to B), its separation. */
export const satOut = new Float64Array(4);
/** Output: kind (SAT_FACE_A / SAT_FACE_B / SAT_EDGE), face index (faces) or A's edge, B's edge (-1: no known edges). */
export const satInt = new Int32Array(3);

/** Prefer faces over edges, and A's face over B's, unless the other is clearly better (as box-box.ts). */
const RELATIVE_TOLERANCE = 0.98;
const ABSOLUTE_TOLERANCE = 0.001;
/** Squared sine below which two edges count as parallel (their cross product is no axis). */
const PARALLEL_SIN2 = 1e-12;

/**
 * Runs the test. `faceA`/`faceB` restrict a triangle to the one face that faces the other shape (-1:
 * all faces); `activeA`/`activeB` are a triangle's active-edge bits (an inactive edge never gives an
 * axis). Returns 0 if some axis separates the shapes by more than the margin, else 1 with the result.
 */
export function sat(va: PolyView, vb: PolyView, faceA: number, faceB: number, activeA: number, activeB: number): number {
  if (faceAxes(va, vb, faceA) === 0) return 0;
  const sepA = faceBest[0];
  const bestA = faceBestIndex[0];
  if (faceAxes(vb, va, faceB) === 0) return 0;
  const sepB = faceBest[0];
  const bestB = faceBestIndex[0];
  const pa = va.planes;
  const pb = vb.planes;
  // A box has only 3 edge directions: projecting on their cross products beats Gauss-map pruning of its
  // 12 edges. Triangles need projections anyway (they are flat).
  const project3 = va.kind !== PROXY_HULL || vb.kind !== PROXY_HULL;
  const found = project3 ? projectedEdges(va, vb, activeA, activeB) : prunedEdges(va, vb);
  if (found < 0) return 0;
  const edgeSep = edgeResult[3];
  const faceSep = sepA > sepB ? sepA : sepB;
  if (found > 0 && edgeSep > faceSep + ABSOLUTE_TOLERANCE + (1 - RELATIVE_TOLERANCE) * Math.abs(faceSep)) {
    satOut[0] = edgeResult[0];
    satOut[1] = edgeResult[1];
    satOut[2] = edgeResult[2];
    satOut[3] = edgeSep;
    satInt[0] = SAT_EDGE;
    satInt[1] = edgePair[0];
    satInt[2] = edgePair[1];
    return 1;
  }
  // A triangle's face is preferred (a mesh's contacts then share its exact normal), else A's.
  const preferB = vb.kind === PROXY_TRIANGLE && va.kind !== PROXY_TRIANGLE;
  const faceOfB = preferB
    ? !(sepA > sepB + ABSOLUTE_TOLERANCE + (1 - RELATIVE_TOLERANCE) * Math.abs(sepB))
    : sepB > sepA + ABSOLUTE_TOLERANCE + (1 - RELATIVE_TOLERANCE) * Math.abs(sepA);
  if (faceOfB) {
    satOut[0] = -pb[4 * bestB];
    satOut[1] = -pb[4 * bestB + 1];
    satOut[2] = -pb[4 * bestB + 2];
    satOut[3] = sepB;
    satInt[0] = SAT_FACE_B;
    satInt[1] = bestB;
    return 1;
  }
  satOut[0] = pa[4 * bestA];
  satOut[1] = pa[4 * bestA + 1];
  satOut[2] = pa[4 * bestA + 2];
  satOut[3] = sepA;
  satInt[0] = SAT_FACE_A;
  satInt[1] = bestA;
  return 1;
}

/** Result of `faceAxes`: the largest separation and its face. */
const faceBest = new Float64Array(1);
const faceBestIndex = new Int32Array(1);

/**
 * Separation of `vi` above each face plane of `vr` (only face `only` if >= 0). A box's opposite faces
 * share one projection. Returns 0 as soon as one exceeds the margin, else 1 with faceBest set (ties keep
 * the lower face index).
 */
function faceAxes(vr: PolyView, vi: PolyView, only: number): number {
  const margin = satIn[0];
  const P = vr.planes;
  let best = -Infinity;
  let bestIndex = -1;
  if (only < 0 && vr.kind === PROXY_BOX) {
    for (let f = 0; f < 6; f += 2) {
      project(vi, P, 4 * f);
      const s0 = proj[0] - P[4 * f + 3];
      const s1 = -proj[1] - P[4 * f + 7];
      if (s0 > margin || s1 > margin) return 0;
      if (s0 > best) {
        best = s0;
        bestIndex = f;
      }
      if (s1 > best) {
        best = s1;
        bestIndex = f + 1;
      }
    }
  } else {
    const first = only < 0 ? 0 : only;
    const end = only < 0 ? vr.faceCount : only + 1;
    for (let f = first; f < end; f++) {
      project(vi, P, 4 * f);
      const s = proj[0] - P[4 * f + 3];
      if (s > margin) return 0;
      if (s > best) {
        best = s;
        bestIndex = f;
      }
    }
  }
  faceBest[0] = best;
  faceBestIndex[0] = bestIndex;
  return 1;
}

/** Smallest and largest projections of a polytope's vertices (results of `project`). */
const proj = new Float64Array(2);
/** An edge axis handed to `project`. */
const axis = new Float64Array(3);

/** proj = range of the vertices of `v` along d[o..o+2] (doubles travel in arrays: arguments get boxed). */
function project(v: PolyView, d: Float64Array, o: number): void {
  const x = d[o];
  const y = d[o + 1];
  const z = d[o + 2];
  if (v.kind === PROXY_BOX) {
    // Centre ± the half extents times |axis · d|: 3 products instead of 8 corners.
    const P = v.planes;
    const h = v.boxHalf;
    const c = v.center[0] * x + v.center[1] * y + v.center[2] * z;
    const r =
      h[0] * Math.abs(P[0] * x + P[1] * y + P[2] * z) +
      h[1] * Math.abs(P[8] * x + P[9] * y + P[10] * z) +
      h[2] * Math.abs(P[16] * x + P[17] * y + P[18] * z);
    proj[0] = c - r;
    proj[1] = c + r;
    return;
  }
  const verts = v.verts;
  let lo = Infinity;
  let hi = -Infinity;
  for (let k = 0; k < v.vertexCount; k++) {
    const s = x * verts[3 * k] + y * verts[3 * k + 1] + z * verts[3 * k + 2];
    if (s < lo) lo = s;
    if (s > hi) hi = s;
  }
  proj[0] = lo;
  proj[1] = hi;
}

/** Best edge axis: xyz (A to B), separation. */
const edgeResult = new Float64Array(4);
/** Edges that made it (-1 when found by projection: the manifold builder then finds the features). */
const edgePair = new Int32Array(2);

/** Edge pairs that are faces of the Minkowski difference. Returns -1 if separated beyond the margin, else how many axes were tested. */
function prunedEdges(va: PolyView, vb: PolyView): number {
  const margin = satIn[0];
  const PA = va.planes;
  const PB = vb.planes;
  const VA = va.verts;
  const VB = vb.verts;
  let tested = 0;
  let best = -Infinity;
  for (let i = 0; i < va.edgeCount; i++) {
    const fa = 4 * va.edgeFaces[2 * i];
    const fb = 4 * va.edgeFaces[2 * i + 1];
    const ax = PA[fa];
    const ay = PA[fa + 1];
    const az = PA[fa + 2];
    const bx = PA[fb];
    const by = PA[fb + 1];
    const bz = PA[fb + 2];
    // b × a
    const bax = by * az - bz * ay;
    const bay = bz * ax - bx * az;
    const baz = bx * ay - by * ax;
    const p0 = 3 * va.edges[2 * i];
    const p1 = 3 * va.edges[2 * i + 1];
    const ex = VA[p1] - VA[p0];
    const ey = VA[p1 + 1] - VA[p0 + 1];
    const ez = VA[p1 + 2] - VA[p0 + 2];
    const ee = ex * ex + ey * ey + ez * ez;
    for (let j = 0; j < vb.edgeCount; j++) {
      // B's normals negated: the Gauss map of -B.
      const fc = 4 * vb.edgeFaces[2 * j];
      const fd = 4 * vb.edgeFaces[2 * j + 1];
      const cx = -PB[fc];
      const cy = -PB[fc + 1];
      const cz = -PB[fc + 2];
      const dx = -PB[fd];
      const dy = -PB[fd + 1];
      const dz = -PB[fd + 2];
      const cba = cx * bax + cy * bay + cz * baz;
      const dba = dx * bax + dy * bay + dz * baz;
      if (cba * dba >= 0) continue;
      // d × c
      const dcx = dy * cz - dz * cy;
      const dcy = dz * cx - dx * cz;
      const dcz = dx * cy - dy * cx;
      const adc = ax * dcx + ay * dcy + az * dcz;
      const bdc = bx * dcx + by * dcy + bz * dcz;
      if (adc * bdc >= 0 || cba * bdc <= 0) continue;
      const q0 = 3 * vb.edges[2 * j];
      const q1 = 3 * vb.edges[2 * j + 1];
      const fx = VB[q1] - VB[q0];
      const fy = VB[q1 + 1] - VB[q0 + 1];
      const fz = VB[q1 + 2] - VB[q0 + 2];
      let lx = ey * fz - ez * fy;
      let ly = ez * fx - ex * fz;
      let lz = ex * fy - ey * fx;
      const ll = lx * lx + ly * ly + lz * lz;
      if (ll <= PARALLEL_SIN2 * ee * (fx * fx + fy * fy + fz * fz)) continue;
      const inv = 1 / Math.sqrt(ll);
      lx *= inv;
      ly *= inv;
      lz *= inv;
      // Orient away from A's interior.
      if (lx * (VA[p0] - va.center[0]) + ly * (VA[p0 + 1] - va.center[1]) + lz * (VA[p0 + 2] - va.center[2]) < 0) {
        lx = -lx;
        ly = -ly;
        lz = -lz;
      }
      const s = lx * (VB[q0] - VA[p0]) + ly * (VB[q0 + 1] - VA[p0 + 1]) + lz * (VB[q0 + 2] - VA[p0 + 2]);
      if (s > margin) return -1;
      tested++;
      if (s > best) {
        best = s;
        edgeResult[0] = lx;
        edgeResult[1] = ly;
        edgeResult[2] = lz;
        edgeResult[3] = s;
        edgePair[0] = i;
        edgePair[1] = j;
      }
    }
  }
  return tested;
}

/** Every pair of edge directions (a box's 3, a hull's every edge; inactive triangle edges skipped), separation by projection. */
function projectedEdges(va: PolyView, vb: PolyView, activeA: number, activeB: number): number {
  const margin = satIn[0];
  const VA = va.verts;
  const VB = vb.verts;
  const triA = va.kind === PROXY_TRIANGLE;
  const triB = vb.kind === PROXY_TRIANGLE;
  let tested = 0;
  let best = -Infinity;
  for (let i = 0; i < va.edgeDirCount; i++) {
    if (triA && (activeA & (1 << i)) === 0) continue;
    const p0 = 3 * va.edges[2 * i];
    const p1 = 3 * va.edges[2 * i + 1];
    const ex = VA[p1] - VA[p0];
    const ey = VA[p1 + 1] - VA[p0 + 1];
    const ez = VA[p1 + 2] - VA[p0 + 2];
    const ee = ex * ex + ey * ey + ez * ez;
    for (let j = 0; j < vb.edgeDirCount; j++) {
      if (triB && (activeB & (1 << j)) === 0) continue;
      const q0 = 3 * vb.edges[2 * j];
      const q1 = 3 * vb.edges[2 * j + 1];
      const fx = VB[q1] - VB[q0];
      const fy = VB[q1 + 1] - VB[q0 + 1];
      const fz = VB[q1 + 2] - VB[q0 + 2];
      let lx = ey * fz - ez * fy;
      let ly = ez * fx - ex * fz;
      let lz = ex * fy - ey * fx;
      const ll = lx * lx + ly * ly + lz * lz;
      if (ll <= PARALLEL_SIN2 * ee * (fx * fx + fy * fy + fz * fz)) continue;
      const inv = 1 / Math.sqrt(ll);
      lx *= inv;
      ly *= inv;
      lz *= inv;
      axis[0] = lx;
      axis[1] = ly;
      axis[2] = lz;
      project(va, axis, 0);
      const loA = proj[0];
      const hiA = proj[1];
      project(vb, axis, 0);
      const up = proj[0] - hiA;
      const down = loA - proj[1];
      const s = up >= down ? up : down;
      if (s > margin) return -1;
      tested++;
      if (s > best) {
        best = s;
        const sg = up >= down ? 1 : -1;
        edgeResult[0] = sg * lx;
        edgeResult[1] = sg * ly;
        edgeResult[2] = sg * lz;
        edgeResult[3] = s;
        edgePair[0] = -1;
        edgePair[1] = -1;
      }
    }
  }
  return tested;
}
