import type { BodyStore } from "../dynamics/body-store.ts";
import { matrixFromQuat } from "../math/quat.ts";
import { reducePoints } from "./reduce-points.ts";
import { MAX_MANIFOLD_POINTS, type ManifoldOut, NORMAL_OF_A, NORMAL_OF_B, NORMAL_OF_NEITHER } from "./manifold.ts";

/**
 * Box-box contact by the separating axis test over all 15 axes (3 + 3 face normals, 9 edge-edge
 * cross products). A face axis gives a clipped manifold: the incident face of the other box is clipped
 * (Sutherland-Hodgman) against the reference face's four side planes, points above the reference face
 * beyond `margin` are dropped and the rest reduced to at most 4. An edge axis gives one point between the
 * two closest edges. Every point carries a feature id so the next tick's points inherit its impulses.
 */

// Scratch, module-private and reused: rotation matrices (row-major, columns are body axes), the
// relative rotation C (C[i][j] = A's axis i · B's axis j) and the clipping polygons.
const RA = new Float64Array(9);
const RB = new Float64Array(9);
const C = new Float64Array(9);
const absC = new Float64Array(9);
const T = new Float64Array(3);
const refC = new Float64Array(9);
const refT = new Float64Array(3);
const MAX_POLY = 8;
const polyIn = new Float64Array(MAX_POLY * 3);
const polyOut = new Float64Array(MAX_POLY * 3);
const idIn = new Int32Array(MAX_POLY);
const idOut = new Int32Array(MAX_POLY);
const edgeIn = new Int32Array(MAX_POLY);
const edgeOut = new Int32Array(MAX_POLY);
const candidates = new Float64Array(MAX_POLY * 3);
const candidateSep = new Float64Array(MAX_POLY);
const candidateId = new Int32Array(MAX_POLY);
const keep = new Int32Array(MAX_MANIFOLD_POINTS);
const reduceNormal = new Float64Array(3);
/** Edge-edge axis handed to edgeContact (scratch, so no doubles are passed as arguments). */
const edgeAxis = new Float64Array(3);

/** Edge axes whose cross product is shorter than this are (near) parallel edges and skipped. */
const PARALLEL_EPSILON = 1e-6;
/** Added to |C| so near-parallel edges do not produce a false separating axis (standard OBB trick). */
const ABS_EPSILON = 1e-9;

/** Prefer faces over edges, and A's face over B's, unless the other is clearly better (temporal coherence). */
const RELATIVE_TOLERANCE = 0.98;
const ABSOLUTE_TOLERANCE = 0.001;


export function collideBoxes(out: ManifoldOut, bodies: BodyStore, a: number, b: number): void {
  out.count = 0;
  const margin = out.margin;
  const p = bodies.pos;
  const h = bodies.half;
  const a3 = a * 3;
  const b3 = b * 3;
  matrixFromQuat(RA, 0, bodies.rot, a * 4);
  matrixFromQuat(RB, 0, bodies.rot, b * 4);
  const hA0 = h[a3];
  const hA1 = h[a3 + 1];
  const hA2 = h[a3 + 2];
  const hB0 = h[b3];
  const hB1 = h[b3 + 1];
  const hB2 = h[b3 + 2];

  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const c = RA[i] * RB[j] + RA[3 + i] * RB[3 + j] + RA[6 + i] * RB[6 + j];
      C[i * 3 + j] = c;
      absC[i * 3 + j] = Math.abs(c) + ABS_EPSILON;
    }
  }
  const dx = p[b3] - p[a3];
  const dy = p[b3 + 1] - p[a3 + 1];
  const dz = p[b3 + 2] - p[a3 + 2];
  for (let i = 0; i < 3; i++) T[i] = RA[i] * dx + RA[3 + i] * dy + RA[6 + i] * dz;

  // Face axes of A.
  let faceASep = -Infinity;
  let faceAAxis = 0;
  for (let i = 0; i < 3; i++) {
    const ra = i === 0 ? hA0 : i === 1 ? hA1 : hA2;
    const rb = absC[i * 3] * hB0 + absC[i * 3 + 1] * hB1 + absC[i * 3 + 2] * hB2;
    const sep = Math.abs(T[i]) - ra - rb;
    if (sep > margin) return;
    if (sep > faceASep) {
      faceASep = sep;
      faceAAxis = i;
    }
  }
  // Face axes of B.
  let faceBSep = -Infinity;
  let faceBAxis = 0;
  for (let j = 0; j < 3; j++) {
    const tb = C[j] * T[0] + C[3 + j] * T[1] + C[6 + j] * T[2];
    const ra = absC[j] * hA0 + absC[3 + j] * hA1 + absC[6 + j] * hA2;
    const rb = j === 0 ? hB0 : j === 1 ? hB1 : hB2;
    const sep = Math.abs(tb) - ra - rb;
    if (sep > margin) return;
    if (sep > faceBSep) {
      faceBSep = sep;
      faceBAxis = j;
    }
  }
  // Edge axes: L = A's axis i × B's axis j, expressed in A's frame.
  let edgeSep = -Infinity;
  let edgeI = -1;
  let edgeJ = -1;
  let ex = 0;
  let ey = 0;
  let ez = 0;
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) {
      const c0 = C[j];
      const c1 = C[3 + j];
      const c2 = C[6 + j];
      let lx: number;
      let ly: number;
      let lz: number;
      if (i === 0) {
        lx = 0;
        ly = -c2;
        lz = c1;
      } else if (i === 1) {
        lx = c2;
        ly = 0;
        lz = -c0;
      } else {
        lx = -c1;
        ly = c0;
        lz = 0;
      }
      const len2 = lx * lx + ly * ly + lz * lz;
      if (len2 < PARALLEL_EPSILON) continue;
      const len = Math.sqrt(len2);
      lx /= len;
      ly /= len;
      lz /= len;
      const ra = hA0 * Math.abs(lx) + hA1 * Math.abs(ly) + hA2 * Math.abs(lz);
      const rb =
        hB0 * Math.abs(lx * C[0] + ly * C[3] + lz * C[6]) +
        hB1 * Math.abs(lx * C[1] + ly * C[4] + lz * C[7]) +
        hB2 * Math.abs(lx * C[2] + ly * C[5] + lz * C[8]);
      const sep = Math.abs(lx * T[0] + ly * T[1] + lz * T[2]) - ra - rb;
      if (sep > margin) return;
      if (sep > edgeSep) {
        edgeSep = sep;
        edgeI = i;
        edgeJ = j;
        ex = lx;
        ey = ly;
        ez = lz;
      }
    }
  }

  const faceSep = Math.max(faceASep, faceBSep);
  // Each candidate must beat the incumbent by a margin, whatever the signs (inlined: see rotateVec).
  if (edgeI >= 0 && edgeSep > faceSep + ABSOLUTE_TOLERANCE + (1 - RELATIVE_TOLERANCE) * Math.abs(faceSep)) {
    edgeAxis[0] = ex;
    edgeAxis[1] = ey;
    edgeAxis[2] = ez;
    edgeContact(out, bodies, a, b, edgeI, edgeJ);
    return;
  }
  if (faceBSep > faceASep + ABSOLUTE_TOLERANCE + (1 - RELATIVE_TOLERANCE) * Math.abs(faceASep)) {
    // Reference face on B: express A in B's frame (C' = Cᵀ, t' = -Cᵀ t).
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) refC[i * 3 + j] = C[j * 3 + i];
    }
    for (let j = 0; j < 3; j++) refT[j] = -(C[j] * T[0] + C[3 + j] * T[1] + C[6 + j] * T[2]);
    faceContact(out, p, h, b3, a3, RB, faceBAxis, true);
  } else {
    refC.set(C);
    refT.set(T);
    faceContact(out, p, h, a3, b3, RA, faceAAxis, false);
  }
}

/**
 * Clips the incident box's face against reference face `axis` (in the reference frame, refC/refT).
 * `r3`/`i3` index the reference and incident boxes in the position and half-extent arrays.
 */
function faceContact(
  out: ManifoldOut,
  p: Float64Array,
  h: Float64Array,
  r3: number,
  i3: number,
  R: Float64Array,
  axis: number,
  referenceIsB: boolean,
): void {
  const margin = out.margin;
  const hR0 = h[r3];
  const hR1 = h[r3 + 1];
  const hR2 = h[r3 + 2];
  const hI0 = h[i3];
  const hI1 = h[i3 + 1];
  const hI2 = h[i3 + 2];
  const s = refT[axis] < 0 ? -1 : 1;
  const hRAxis = axis === 0 ? hR0 : axis === 1 ? hR1 : hR2;
  // Incident face: the incident box's face most anti-parallel to the reference normal.
  let l = 0;
  let best = -1;
  for (let k = 0; k < 3; k++) {
    const v = Math.abs(refC[axis * 3 + k]);
    if (v > best) {
      best = v;
      l = k;
    }
  }
  const incSign = s * refC[axis * 3 + l] > 0 ? -1 : 1;
  const l1 = (l + 1) % 3;
  const l2 = (l + 2) % 3;
  const hIl = l === 0 ? hI0 : l === 1 ? hI1 : hI2;
  const hIl1 = l1 === 0 ? hI0 : l1 === 1 ? hI1 : hI2;
  const hIl2 = l2 === 0 ? hI0 : l2 === 1 ? hI1 : hI2;
  // Columns of refC are the incident box's axes in the reference frame.
  const cx = refT[0] + incSign * hIl * refC[l];
  const cy = refT[1] + incSign * hIl * refC[3 + l];
  const cz = refT[2] + incSign * hIl * refC[6 + l];
  const ux = hIl1 * refC[l1];
  const uy = hIl1 * refC[3 + l1];
  const uz = hIl1 * refC[6 + l1];
  const vx = hIl2 * refC[l2];
  const vy = hIl2 * refC[3 + l2];
  const vz = hIl2 * refC[6 + l2];
  polyIn[0] = cx + ux + vx;
  polyIn[1] = cy + uy + vy;
  polyIn[2] = cz + uz + vz;
  polyIn[3] = cx - ux + vx;
  polyIn[4] = cy - uy + vy;
  polyIn[5] = cz - uz + vz;
  polyIn[6] = cx - ux - vx;
  polyIn[7] = cy - uy - vy;
  polyIn[8] = cz - uz - vz;
  polyIn[9] = cx + ux - vx;
  polyIn[10] = cy + uy - vy;
  polyIn[11] = cz + uz - vz;
  for (let k = 0; k < 4; k++) {
    idIn[k] = k;
    edgeIn[k] = k;
  }
  let n = 4;
  // Side planes of the reference face: the two other axes, + and - each.
  const a1 = (axis + 1) % 3;
  const a2 = (axis + 2) % 3;
  n = clip(n, a1, 1, h, r3 + a1, 0, polyIn, idIn, edgeIn, polyOut, idOut, edgeOut);
  if (n === 0) return;
  n = clip(n, a1, -1, h, r3 + a1, 1, polyOut, idOut, edgeOut, polyIn, idIn, edgeIn);
  if (n === 0) return;
  n = clip(n, a2, 1, h, r3 + a2, 2, polyIn, idIn, edgeIn, polyOut, idOut, edgeOut);
  if (n === 0) return;
  n = clip(n, a2, -1, h, r3 + a2, 3, polyOut, idOut, edgeOut, polyIn, idIn, edgeIn);
  if (n === 0) return;

  // Keep points no farther above the reference face than the margin.
  let m = 0;
  for (let k = 0; k < n; k++) {
    const sep = s * polyIn[k * 3 + axis] - hRAxis;
    if (sep > margin) continue;
    candidates[m * 3] = polyIn[k * 3];
    candidates[m * 3 + 1] = polyIn[k * 3 + 1];
    candidates[m * 3 + 2] = polyIn[k * 3 + 2];
    candidateSep[m] = sep;
    candidateId[m] = idIn[k];
    m++;
  }
  if (m === 0) return;
  let count: number;
  if (m > MAX_MANIFOLD_POINTS) {
    // The reference normal in the reference frame: s along the face's axis.
    reduceNormal[0] = reduceNormal[1] = reduceNormal[2] = 0;
    reduceNormal[axis] = s;
    count = reducePoints(candidates, candidateSep, m, reduceNormal, keep);
  } else count = identityKeep(m);

  // Reference normal in world space (column `axis` of R).
  const nwx = s * R[axis];
  const nwy = s * R[3 + axis];
  const nwz = s * R[6 + axis];
  const faceId = ((referenceIsB ? 1 : 0) << 14) | ((axis * 2 + (s > 0 ? 1 : 0)) << 11) | ((l * 2 + (incSign > 0 ? 1 : 0)) << 8);
  const px = p[r3];
  const py = p[r3 + 1];
  const pz = p[r3 + 2];
  // Incident points go to the incident body's side, their projection on the face to the reference side.
  const inc = referenceIsB ? out.pointA : out.pointB;
  const ref = referenceIsB ? out.pointB : out.pointA;
  for (let k = 0; k < count; k++) {
    const c = keep[k];
    const lx = candidates[c * 3];
    const ly = candidates[c * 3 + 1];
    const lz = candidates[c * 3 + 2];
    const sep = candidateSep[c];
    const wx = px + R[0] * lx + R[1] * ly + R[2] * lz;
    const wy = py + R[3] * lx + R[4] * ly + R[5] * lz;
    const wz = pz + R[6] * lx + R[7] * ly + R[8] * lz;
    inc[k * 3] = wx;
    inc[k * 3 + 1] = wy;
    inc[k * 3 + 2] = wz;
    ref[k * 3] = wx - sep * nwx;
    ref[k * 3 + 1] = wy - sep * nwy;
    ref[k * 3 + 2] = wz - sep * nwz;
    out.separation[k] = sep;
    out.id[k] = faceId | candidateId[c];
  }
  out.count = count;
  out.normalOwner = referenceIsB ? NORMAL_OF_B : NORMAL_OF_A;
  if (referenceIsB) {
    out.normal[0] = -nwx;
    out.normal[1] = -nwy;
    out.normal[2] = -nwz;
  } else {
    out.normal[0] = nwx;
    out.normal[1] = nwy;
    out.normal[2] = nwz;
  }
}

/**
 * One Sutherland-Hodgman pass against the plane dir * x[axis] <= half[limitIndex]. Ids: original incident vertices
 * keep 0..3; a point where polygon edge e (0..3 incident edges, 4..7 earlier clip planes) crosses plane
 * `plane` gets 16 + e * 4 + plane, so the same geometric feature keeps the same id every tick.
 */
function clip(
  n: number,
  axis: number,
  dir: number,
  half: Float64Array,
  limitIndex: number,
  plane: number,
  src: Float64Array,
  srcId: Int32Array,
  srcEdge: Int32Array,
  dst: Float64Array,
  dstId: Int32Array,
  dstEdge: Int32Array,
): number {
  const limit = half[limitIndex];
  let m = 0;
  for (let k = 0; k < n; k++) {
    const q = k + 1 === n ? 0 : k + 1;
    const dp = dir * src[k * 3 + axis] - limit;
    const dq = dir * src[q * 3 + axis] - limit;
    const edge = srcEdge[k];
    if (dp <= 0) {
      dst[m * 3] = src[k * 3];
      dst[m * 3 + 1] = src[k * 3 + 1];
      dst[m * 3 + 2] = src[k * 3 + 2];
      dstId[m] = srcId[k];
      dstEdge[m] = edge;
      m++;
      if (dq > 0) {
        const t = dp / (dp - dq);
        dst[m * 3] = src[k * 3] + t * (src[q * 3] - src[k * 3]);
        dst[m * 3 + 1] = src[k * 3 + 1] + t * (src[q * 3 + 1] - src[k * 3 + 1]);
        dst[m * 3 + 2] = src[k * 3 + 2] + t * (src[q * 3 + 2] - src[k * 3 + 2]);
        dst[m * 3 + axis] = dir * limit;
        dstId[m] = 16 + edge * 4 + plane;
        dstEdge[m] = 4 + plane;
        m++;
      }
    } else if (dq <= 0) {
      const t = dp / (dp - dq);
      dst[m * 3] = src[k * 3] + t * (src[q * 3] - src[k * 3]);
      dst[m * 3 + 1] = src[k * 3 + 1] + t * (src[q * 3 + 1] - src[k * 3 + 1]);
      dst[m * 3 + 2] = src[k * 3 + 2] + t * (src[q * 3 + 2] - src[k * 3 + 2]);
      dst[m * 3 + axis] = dir * limit;
      dstId[m] = 16 + edge * 4 + plane;
      dstEdge[m] = edge;
      m++;
    }
  }
  return m;
}

function identityKeep(m: number): number {
  for (let k = 0; k < m; k++) keep[k] = k;
  return m;
}

function edgeContact(
  out: ManifoldOut,
  bodies: BodyStore,
  a: number,
  b: number,
  i: number,
  j: number,
): void {
  const h = bodies.half;
  const a3 = a * 3;
  const b3 = b * 3;
  const margin = out.margin;
  let lx = edgeAxis[0];
  let ly = edgeAxis[1];
  let lz = edgeAxis[2];
  // Orient the axis from A towards B.
  if (lx * T[0] + ly * T[1] + lz * T[2] < 0) {
    lx = -lx;
    ly = -ly;
    lz = -lz;
  }
  // A's edge along axis i at the support point in direction L (A frame).
  let pax = 0;
  let pay = 0;
  let paz = 0;
  let edgeA = i * 4;
  let bit = 0;
  for (let k = 0; k < 3; k++) {
    if (k === i) continue;
    const sg = (k === 0 ? lx : k === 1 ? ly : lz) < 0 ? -1 : 1;
    const v = sg * h[a3 + k];
    if (k === 0) pax = v;
    else if (k === 1) pay = v;
    else paz = v;
    if (sg > 0) edgeA |= 1 << bit;
    bit++;
  }
  // B's edge along its axis j at the support point in direction -L, expressed in A's frame.
  let pbx = T[0];
  let pby = T[1];
  let pbz = T[2];
  let edgeB = j * 4;
  bit = 0;
  for (let k = 0; k < 3; k++) {
    if (k === j) continue;
    const ck = lx * C[k] + ly * C[3 + k] + lz * C[6 + k];
    const sg = ck < 0 ? 1 : -1;
    const v = sg * h[b3 + k];
    pbx += v * C[k];
    pby += v * C[3 + k];
    pbz += v * C[6 + k];
    if (sg > 0) edgeB |= 1 << bit;
    bit++;
  }
  const dax = i === 0 ? 1 : 0;
  const day = i === 1 ? 1 : 0;
  const daz = i === 2 ? 1 : 0;
  const dbx = C[j];
  const dby = C[3 + j];
  const dbz = C[6 + j];
  const halfA = h[a3 + i];
  const halfB = h[b3 + j];
  // Closest points of the two lines, clamped to the edges.
  const rx = pax - pbx;
  const ry = pay - pby;
  const rz = paz - pbz;
  const bb = dax * dbx + day * dby + daz * dbz;
  const c = dax * rx + day * ry + daz * rz;
  const f = dbx * rx + dby * ry + dbz * rz;
  const denom = 1 - bb * bb;
  let sa = 0;
  let sb = 0;
  if (denom > 1e-12) {
    sa = (bb * f - c) / denom;
    sb = (f - bb * c) / denom;
  }
  sa = sa < -halfA ? -halfA : sa > halfA ? halfA : sa;
  sb = sb < -halfB ? -halfB : sb > halfB ? halfB : sb;
  const qax = pax + sa * dax;
  const qay = pay + sa * day;
  const qaz = paz + sa * daz;
  const qbx = pbx + sb * dbx;
  const qby = pby + sb * dby;
  const qbz = pbz + sb * dbz;
  const sep = (qbx - qax) * lx + (qby - qay) * ly + (qbz - qaz) * lz;
  if (sep > margin) return;
  const p = bodies.pos;
  const px = p[a3];
  const py = p[a3 + 1];
  const pz = p[a3 + 2];
  out.pointA[0] = px + RA[0] * qax + RA[1] * qay + RA[2] * qaz;
  out.pointA[1] = py + RA[3] * qax + RA[4] * qay + RA[5] * qaz;
  out.pointA[2] = pz + RA[6] * qax + RA[7] * qay + RA[8] * qaz;
  out.pointB[0] = px + RA[0] * qbx + RA[1] * qby + RA[2] * qbz;
  out.pointB[1] = py + RA[3] * qbx + RA[4] * qby + RA[5] * qbz;
  out.pointB[2] = pz + RA[6] * qbx + RA[7] * qby + RA[8] * qbz;
  out.normal[0] = RA[0] * lx + RA[1] * ly + RA[2] * lz;
  out.normal[1] = RA[3] * lx + RA[4] * ly + RA[5] * lz;
  out.normal[2] = RA[6] * lx + RA[7] * ly + RA[8] * lz;
  out.separation[0] = sep;
  out.id[0] = (1 << 15) | (edgeA << 4) | edgeB;
  out.count = 1;
  out.normalOwner = NORMAL_OF_NEITHER;
}
