import { MAX_MANIFOLD_POINTS, type ManifoldOut, NORMAL_OF_A, NORMAL_OF_B, NORMAL_OF_NEITHER } from "../manifold.ts";
import { reducePoints } from "../reduce-points.ts";
import { closestSegments, seg, segOut } from "./gjk.ts";
import { Feature, MAX_FEATURE_POINTS, SIDE_SIN } from "./support.ts";

/**
 * Contact manifold from the two supporting features along a contact normal. A face on either side
 * becomes the reference: the other feature (face polygon, edge or point) is clipped against the
 * reference face's side planes (Sutherland-Hodgman), points farther above the face than the margin
 * are dropped, and the rest reduced to 4 (deepest, farthest from it, then the largest triangles on
 * either side: the reduction of Box2D v3 manifold.c and of box-box.ts). Without a face, two nearly
 * parallel edges give the two ends of their overlap, anything else a single point where they come closest.
 */

/** Supporting features of A (along the normal) and B (against it), filled by the caller. */
export const featA = new Feature();
export const featB = new Feature();

/**
 * Output: the body whose face is the reference of the last manifold built (NORMAL_OF_A / NORMAL_OF_B),
 * or NORMAL_OF_NEITHER (edges, points). The manifold's own normalOwner is left to the caller.
 */
export const faceOwner = new Int32Array([NORMAL_OF_NEITHER]);

/** Input: [0..2] contact normal A to B; [3] A's core radius; [4] B's. */
export const build = new Float64Array(5);

const MAX_POLY = 2 * MAX_FEATURE_POINTS + 8;
const polyIn = new Float64Array(3 * MAX_POLY);
const polyOut = new Float64Array(3 * MAX_POLY);
const idIn = new Int32Array(MAX_POLY);
const idOut = new Int32Array(MAX_POLY);
const edgeIn = new Int32Array(MAX_POLY);
const edgeOut = new Int32Array(MAX_POLY);
const cand = new Float64Array(3 * MAX_POLY);
const candSep = new Float64Array(MAX_POLY);
const candId = new Int32Array(MAX_POLY);
const keep = new Int32Array(MAX_MANIFOLD_POINTS);
const plane = new Float64Array(4);
/** The reference face's normal, for the reduction. */
const refN = new Float64Array(3);

/** Sines below SIDE_SIN: two edges this close to parallel share a line of contact. */
const PARALLEL_SIN2 = SIDE_SIN * SIDE_SIN;

export const REF_NONE = -1;
export const REF_A = 0;
export const REF_B = 1;

/**
 * Writes the manifold into `out` (count, normal, points, separations, ids xor `mix`); returns the count.
 * `refHint` forces the reference face (REF_A / REF_B, from a face axis of the separating axis test).
 */
export function buildManifold(out: ManifoldOut, refHint: number, mix: number): number {
  out.count = 0;
  faceOwner[0] = NORMAL_OF_NEITHER;
  const faceA = featA.count >= 3;
  const faceB = featB.count >= 3;
  let ref = refHint;
  if (ref === REF_NONE && (faceA || faceB)) {
    if (faceA && faceB) {
      // The face more aligned with the normal; an exact face beats the cylinder's polygonal cap.
      const n0 = build[0];
      const n1 = build[1];
      const n2 = build[2];
      let sa = featA.normal[0] * n0 + featA.normal[1] * n1 + featA.normal[2] * n2;
      let sb = -(featB.normal[0] * n0 + featB.normal[1] * n1 + featB.normal[2] * n2);
      if (featA.exact && !featB.exact) sa += 0.01;
      if (featB.exact && !featA.exact) sb += 0.01;
      ref = sb > sa + 1e-9 ? REF_B : REF_A;
    } else ref = faceA ? REF_A : REF_B;
  }
  if (ref === REF_A) return faceContact(out, featA, featB, false, mix);
  if (ref === REF_B) return faceContact(out, featB, featA, true, mix);
  return edgeContact(out, mix);
}

const uv = new Float64Array(2 * MAX_POLY);

const orderScratch = new Float64Array(5 * MAX_POLY);

/**
 * Puts the m clipped points of incident face `inc` in box-box.ts's order: counter-clockwise in the plane
 * of the incident body's two local axes other than the one nearest the face normal (u, v), starting at the
 * point farthest along u + v. The solver visits points in manifold order, and an impact resolved in
 * another order ends a hair apart: a hull made of a box's corners must move exactly like the box.
 */
function orderLikeBoxes(inc: Feature, m: number): void {
  const R = inc.rot;
  const fn = inc.normal;
  let l = 0;
  let best = -1;
  for (let k = 0; k < 3; k++) {
    const v = Math.abs(R[k] * fn[0] + R[3 + k] * fn[1] + R[6 + k] * fn[2]);
    if (v > best) {
      best = v;
      l = k;
    }
  }
  const l1 = l === 2 ? 0 : l + 1;
  const l2 = l === 0 ? 2 : l - 1;
  let area = 0;
  let start = 0;
  let top = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < m; k++) {
    const x = cand[3 * k];
    const y = cand[3 * k + 1];
    const z = cand[3 * k + 2];
    const u = R[l1] * x + R[3 + l1] * y + R[6 + l1] * z;
    const v = R[l2] * x + R[3 + l2] * y + R[6 + l2] * z;
    uv[2 * k] = u;
    uv[2 * k + 1] = v;
    if (u + v > top) {
      top = u + v;
      start = k;
    }
  }
  for (let k = 0; k < m; k++) {
    const q = k + 1 === m ? 0 : k + 1;
    area += uv[2 * k] * uv[2 * q + 1] - uv[2 * q] * uv[2 * k + 1];
  }
  const step = area >= 0 ? 1 : m - 1;
  const o = orderScratch;
  for (let k = 0; k < m; k++) {
    o[5 * k] = cand[3 * k];
    o[5 * k + 1] = cand[3 * k + 1];
    o[5 * k + 2] = cand[3 * k + 2];
    o[5 * k + 3] = candSep[k];
    o[5 * k + 4] = candId[k];
  }
  let k = start;
  for (let i = 0; i < m; i++) {
    cand[3 * i] = o[5 * k];
    cand[3 * i + 1] = o[5 * k + 1];
    cand[3 * i + 2] = o[5 * k + 2];
    candSep[i] = o[5 * k + 3];
    candId[i] = o[5 * k + 4];
    k = k + step >= m ? k + step - m : k + step;
  }
}

/** Clips incident feature `inc` against reference face `ref`. */
function faceContact(out: ManifoldOut, ref: Feature, inc: Feature, refIsB: boolean, mix: number): number {
  const margin = out.margin;
  // The incident core's radius (read here: a double passed as an argument would be boxed).
  const rI = refIsB ? build[3] : build[4];
  const nx = ref.normal[0];
  const ny = ref.normal[1];
  const nz = ref.normal[2];
  const rp = ref.pts;
  const rc = ref.count;
  let n = inc.count;
  for (let k = 0; k < 3 * n; k++) polyIn[k] = inc.pts[k];
  for (let k = 0; k < n; k++) {
    idIn[k] = n <= 2 ? inc.vid[k] & 63 : k & 63;
    edgeIn[k] = k;
  }
  for (let e = 0; e < rc && n > 0; e++) {
    const q = e + 1 === rc ? 0 : e + 1;
    const ex = rp[3 * q] - rp[3 * e];
    const ey = rp[3 * q + 1] - rp[3 * e + 1];
    const ez = rp[3 * q + 2] - rp[3 * e + 2];
    // Side plane through the edge, outward: edge × normal (counter-clockwise polygon).
    const sx = ey * nz - ez * ny;
    const sy = ez * nx - ex * nz;
    const sz = ex * ny - ey * nx;
    plane[0] = sx;
    plane[1] = sy;
    plane[2] = sz;
    plane[3] = sx * rp[3 * e] + sy * rp[3 * e + 1] + sz * rp[3 * e + 2];
    if ((e & 1) === 0) n = clipPlane(n, e, polyIn, idIn, edgeIn, polyOut, idOut, edgeOut);
    else n = clipPlane(n, e, polyOut, idOut, edgeOut, polyIn, idIn, edgeIn);
  }
  if (n === 0) return 0;
  const src = (rc & 1) === 1 ? polyOut : polyIn;
  const srcId = (rc & 1) === 1 ? idOut : idIn;
  let m = 0;
  const d = ref.d;
  for (let k = 0; k < n; k++) {
    // Incident surface point: the core point moved by its radius towards the reference face.
    const x = src[3 * k] - rI * nx;
    const y = src[3 * k + 1] - rI * ny;
    const z = src[3 * k + 2] - rI * nz;
    const s = nx * x + ny * y + nz * z - d;
    if (s > margin) continue;
    cand[3 * m] = x;
    cand[3 * m + 1] = y;
    cand[3 * m + 2] = z;
    candSep[m] = s;
    candId[m] = srcId[k];
    m++;
  }
  if (m === 0) return 0;
  if (inc.count >= 3 && m >= 3) orderLikeBoxes(inc, m);
  refN[0] = nx;
  refN[1] = ny;
  refN[2] = nz;
  const count = m > MAX_MANIFOLD_POINTS ? reducePoints(cand, candSep, m, refN, keep) : identityKeep(m);
  const base = ((refIsB ? 1 : 0) << 30) | ((ref.featureId & 1023) << 20) | ((inc.featureId & 127) << 13);
  const incPts = refIsB ? out.pointA : out.pointB;
  const refPts = refIsB ? out.pointB : out.pointA;
  for (let k = 0; k < count; k++) {
    const c = keep[k];
    const s = candSep[c];
    const x = cand[3 * c];
    const y = cand[3 * c + 1];
    const z = cand[3 * c + 2];
    incPts[3 * k] = x;
    incPts[3 * k + 1] = y;
    incPts[3 * k + 2] = z;
    refPts[3 * k] = x - s * nx;
    refPts[3 * k + 1] = y - s * ny;
    refPts[3 * k + 2] = z - s * nz;
    out.separation[k] = s;
    out.id[k] = (base | candId[c]) ^ mix;
  }
  // 0 - x, not -x: a zero component stays +0.
  out.normal[0] = refIsB ? 0 - nx : nx;
  out.normal[1] = refIsB ? 0 - ny : ny;
  out.normal[2] = refIsB ? 0 - nz : nz;
  // The normal is the reference face's: it turns with that body, so the manifold may be recycled.
  faceOwner[0] = refIsB ? NORMAL_OF_B : NORMAL_OF_A;
  out.count = count;
  return count;
}

/**
 * One clipping pass against `plane` (keep plane · x <= plane[3]). Ids as box-box.ts: kept points keep
 * theirs; a point where polygon edge e crosses side plane p gets 64 + 64 e + p (e < 32: an incident
 * edge, 32 + p': a point's outgoing edge that lies on side plane p'), stable while the features are.
 * A polygon of 1 or 2 points is a point or a segment (no closing edge back).
 */
function clipPlane(
  n: number,
  p: number,
  src: Float64Array,
  srcId: Int32Array,
  srcEdge: Int32Array,
  dst: Float64Array,
  dstId: Int32Array,
  dstEdge: Int32Array,
): number {
  const px = plane[0];
  const py = plane[1];
  const pz = plane[2];
  const off = plane[3];
  // Points exactly on a side plane stay (a box resting on a box of the same size keeps its corners).
  const tol = 1e-12 * (Math.abs(off) + Math.sqrt(px * px + py * py + pz * pz));
  let m = 0;
  const closed = n >= 3;
  const edges = closed ? n : n - 1;
  if (n === 1) {
    if (px * src[0] + py * src[1] + pz * src[2] - off <= tol) {
      dst[0] = src[0];
      dst[1] = src[1];
      dst[2] = src[2];
      dstId[0] = srcId[0];
      dstEdge[0] = srcEdge[0];
      return 1;
    }
    return 0;
  }
  for (let k = 0; k < n; k++) {
    const dp = px * src[3 * k] + py * src[3 * k + 1] + pz * src[3 * k + 2] - off;
    if (dp <= tol) {
      dst[3 * m] = src[3 * k];
      dst[3 * m + 1] = src[3 * k + 1];
      dst[3 * m + 2] = src[3 * k + 2];
      dstId[m] = srcId[k];
      dstEdge[m] = srcEdge[k];
      m++;
    }
    if (k >= edges) continue;
    const q = k + 1 === n ? 0 : k + 1;
    const dq = px * src[3 * q] + py * src[3 * q + 1] + pz * src[3 * q + 2] - off;
    if (dp <= tol === dq <= tol) continue;
    const t = dp / (dp - dq);
    dst[3 * m] = src[3 * k] + t * (src[3 * q] - src[3 * k]);
    dst[3 * m + 1] = src[3 * k + 1] + t * (src[3 * q + 1] - src[3 * k + 1]);
    dst[3 * m + 2] = src[3 * k + 2] + t * (src[3 * q + 2] - src[3 * k + 2]);
    dstId[m] = 64 + ((srcEdge[k] & 63) << 6) + (p & 63);
    // Leaving the kept side, the new point's outgoing edge runs along the side plane.
    dstEdge[m] = dp <= tol ? 32 + (p & 31) : srcEdge[k];
    m++;
  }
  return m;
}

function identityKeep(m: number): number {
  for (let k = 0; k < m; k++) keep[k] = k;
  return m;
}

/**
 * No face on either side: points and edges. Parallel edges give the two ends of their common stretch
 * (a capsule lying along another, a box edge on a cylinder's side); otherwise one point.
 */
function edgeContact(out: ManifoldOut, mix: number): number {
  const margin = out.margin;
  const nx = build[0];
  const ny = build[1];
  const nz = build[2];
  const rA = build[3];
  const rB = build[4];
  const a = featA.pts;
  const b = featB.pts;
  const ia = featA.count === 2 ? 3 : 0;
  const ib = featB.count === 2 ? 3 : 0;
  seg[0] = a[0];
  seg[1] = a[1];
  seg[2] = a[2];
  seg[3] = a[ia];
  seg[4] = a[ia + 1];
  seg[5] = a[ia + 2];
  seg[6] = b[0];
  seg[7] = b[1];
  seg[8] = b[2];
  seg[9] = b[ib];
  seg[10] = b[ib + 1];
  seg[11] = b[ib + 2];
  const base = (1 << 29) | ((featA.featureId & 1023) << 16) | ((featB.featureId & 1023) << 4);
  if (ia > 0 && ib > 0 && parallelOverlap() === 1) {
    let count = 0;
    for (let k = 0; k < 2; k++) {
      const s = (overlap[6 * k + 3] - overlap[6 * k]) * nx + (overlap[6 * k + 4] - overlap[6 * k + 1]) * ny + (overlap[6 * k + 5] - overlap[6 * k + 2]) * nz - rA - rB;
      if (s > margin) continue;
      writeOverlapPoint(out, count, k);
      out.separation[count] = s;
      out.id[count] = (base | k) ^ mix;
      count++;
    }
    if (count > 0) {
      setNormal(out);
      out.count = count;
      return count;
    }
  }
  // One point, where the features come closest. Apart, those closest points are the contact. Crossing
  // or overlapping (EPA, deep edge axes) they coincide or point the wrong way; then each side takes its
  // support along the normal: the closest point on a feature that is square to the normal (a point, an
  // edge perpendicular to it), else the deepest end of a slightly tilted edge (its true support).
  closestSegments();
  const gx = segOut[5] - segOut[2];
  const gy = segOut[6] - segOut[3];
  const gz = segOut[7] - segOut[4];
  const gap = gx * nx + gy * ny + gz * nz;
  if (!(gap > 1e-9 && gap * gap >= 0.9999 * (gx * gx + gy * gy + gz * gz))) {
    supportEnd(featA, 2, 1);
    supportEnd(featB, 5, -1);
  }
  const s = (segOut[5] - segOut[2]) * nx + (segOut[6] - segOut[3]) * ny + (segOut[7] - segOut[4]) * nz - rA - rB;
  if (s > margin) return 0;
  for (let c = 0; c < 3; c++) {
    out.pointA[c] = segOut[2 + c] + rA * build[c];
    out.pointB[c] = segOut[5 + c] - rB * build[c];
  }
  out.separation[0] = s;
  out.id[0] = (base | 2) ^ mix;
  setNormal(out);
  out.count = 1;
  return 1;
}

/**
 * If feature f is an edge tilted against the normal, replaces its closest point segOut[o..o+2] by its
 * end farthest along sign · normal.
 */
function supportEnd(f: Feature, o: number, sign: number): void {
  if (f.count !== 2) return;
  const p = f.pts;
  const d = build[0] * (p[3] - p[0]) + build[1] * (p[4] - p[1]) + build[2] * (p[5] - p[2]);
  if (d * d <= 1e-18 * (1 + (p[3] - p[0]) * (p[3] - p[0]) + (p[4] - p[1]) * (p[4] - p[1]) + (p[5] - p[2]) * (p[5] - p[2]))) return;
  const k = sign * d > 0 ? 3 : 0;
  segOut[o] = p[k];
  segOut[o + 1] = p[k + 1];
  segOut[o + 2] = p[k + 2];
}

function setNormal(out: ManifoldOut): void {
  out.normal[0] = build[0];
  out.normal[1] = build[1];
  out.normal[2] = build[2];
}

/** Point k from the core points in overlap[6k..]: moved out by the radii along the normal. */
function writeOverlapPoint(out: ManifoldOut, k: number, j: number): void {
  const rA = build[3];
  const rB = build[4];
  for (let c = 0; c < 3; c++) {
    out.pointA[3 * k + c] = overlap[6 * j + c] + rA * build[c];
    out.pointB[3 * k + c] = overlap[6 * j + 3 + c] - rB * build[c];
  }
}

/** The two ends of the common stretch of nearly parallel segments: A point xyz, B point xyz, twice. */
const overlap = new Float64Array(12);

/** Fills `overlap` from segments seg[0..5] (A) and seg[6..11] (B); returns 1 if they are parallel and overlap. */
function parallelOverlap(): number {
  const dx = seg[3] - seg[0];
  const dy = seg[4] - seg[1];
  const dz = seg[5] - seg[2];
  const fx = seg[9] - seg[6];
  const fy = seg[10] - seg[7];
  const fz = seg[11] - seg[8];
  const dd = dx * dx + dy * dy + dz * dz;
  const ff = fx * fx + fy * fy + fz * fz;
  const cx = dy * fz - dz * fy;
  const cy = dz * fx - dx * fz;
  const cz = dx * fy - dy * fx;
  if (dd === 0 || ff === 0 || cx * cx + cy * cy + cz * cz > PARALLEL_SIN2 * dd * ff) return 0;
  // B's ends in A's parameter.
  let t0 = ((seg[6] - seg[0]) * dx + (seg[7] - seg[1]) * dy + (seg[8] - seg[2]) * dz) / dd;
  let t1 = ((seg[9] - seg[0]) * dx + (seg[10] - seg[1]) * dy + (seg[11] - seg[2]) * dz) / dd;
  if (t0 > t1) {
    const t = t0;
    t0 = t1;
    t1 = t;
  }
  const lo = t0 > 0 ? t0 : 0;
  const hi = t1 < 1 ? t1 : 1;
  if (hi - lo <= 1e-9) return 0;
  for (let k = 0; k < 2; k++) {
    const t = k === 0 ? lo : hi;
    const ax = seg[0] + t * dx;
    const ay = seg[1] + t * dy;
    const az = seg[2] + t * dz;
    // Closest point of B's segment to that point.
    let u = ((ax - seg[6]) * fx + (ay - seg[7]) * fy + (az - seg[8]) * fz) / ff;
    u = u < 0 ? 0 : u > 1 ? 1 : u;
    overlap[6 * k] = ax;
    overlap[6 * k + 1] = ay;
    overlap[6 * k + 2] = az;
    overlap[6 * k + 3] = seg[6] + u * fx;
    overlap[6 * k + 4] = seg[7] + u * fy;
    overlap[6 * k + 5] = seg[8] + u * fz;
  }
  return 1;
}
