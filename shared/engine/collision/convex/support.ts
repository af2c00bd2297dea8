import { type PolyView, polySupportIndex } from "./poly-view.ts";
import { type ConvexProxy, PROXY_CAPSULE, PROXY_CYLINDER, PROXY_SPHERE, PROXY_TRIANGLE } from "./proxy.ts";

/**
 * Support mappings and supporting features of the convex proxies, in world space.
 *
 * A sphere is a point core and a capsule a segment core, each with its radius added afterwards; every
 * other shape is its own core (radius 0). The GJK and EPA iterations read `supportCore`; the manifold
 * builder reads `supportingFeature`: the vertex, edge or face a shape presents in a direction.
 */

/** Most points a supporting feature holds (a hull face with more vertices keeps its first ones). */
export const MAX_FEATURE_POINTS = 32;

/**
 * A face is taken as the supporting feature when its normal is within ~4.6° of the direction, and a
 * capsule's or cylinder's side (an edge) when the axis is within that of perpendicular: a resting shape
 * then gets a full manifold, not a single point that lets it rock.
 */
export const FACE_COS = 0.9968;
export const SIDE_SIN = 0.08;

/** Cylinder caps are approximated by this regular polygon of rim points (cos, sin of k · 45°). */
const CAP_POINTS = 8;
const H = Math.sqrt(0.5);
const CAP_COS = new Float64Array([1, H, 0, -H, -1, -H, 0, H]);
const CAP_SIN = new Float64Array([0, H, 1, H, 0, -H, -1, -H]);

/** Cylinder feature codes (the feature id of a cylinder feature). */
const CYL_TOP = 0;
const CYL_BOTTOM = 1;
const CYL_SIDE = 2;
const CYL_RIM = 3;

/**
 * The points of a supporting feature: 1 (vertex), 2 (edge) or 3+ (a face polygon, counter-clockwise seen
 * from outside, with its outward normal and plane offset). `vid` gives each point a small id that is
 * stable while the feature stays the same; `featureId` names the feature itself.
 */
const IDENTITY_ROT = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);

export class Feature {
  count = 0;
  readonly pts = new Float64Array(3 * MAX_FEATURE_POINTS);
  readonly vid = new Int32Array(MAX_FEATURE_POINTS);
  readonly normal = new Float64Array(3);
  d = 0;
  featureId = 0;
  /** The proxy's rotation (row-major, columns are its local axes): orders a face polygon like box-box.ts. */
  readonly rot = new Float64Array(9);
  /** False for the cylinder's cap polygon, which only approximates the true (round) face. */
  exact = true;
}

/** out[o..o+2] = the core's point farthest along d[0..2] (any one of them on ties, deterministically). */
export function supportCore(p: ConvexProxy, v: PolyView, d: Float64Array, out: Float64Array, o: number): void {
  const kind = p.kind;
  const pos = p.pos;
  if (kind === PROXY_SPHERE) {
    out[o] = pos[0];
    out[o + 1] = pos[1];
    out[o + 2] = pos[2];
    return;
  }
  const R = p.rot;
  if (kind === PROXY_CAPSULE || kind === PROXY_CYLINDER) {
    const ux = R[1];
    const uy = R[4];
    const uz = R[7];
    const dx = d[0];
    const dy = d[1];
    const dz = d[2];
    const du = ux * dx + uy * dy + uz * dz;
    const h = du >= 0 ? p.half[1] : -p.half[1];
    let x = pos[0] + h * ux;
    let y = pos[1] + h * uy;
    let z = pos[2] + h * uz;
    if (kind === PROXY_CYLINDER) {
      let px = dx - du * ux;
      let py = dy - du * uy;
      let pz = dz - du * uz;
      // Once more: when d is nearly along the axis the first pass leaves rounding along it, which the
      // normalisation below would blow up into a point off the rim.
      const e = px * ux + py * uy + pz * uz;
      px -= e * ux;
      py -= e * uy;
      pz -= e * uz;
      const len2 = px * px + py * py + pz * pz;
      // Nearly along the axis: every cap point supports; the centre is as good as any.
      if (len2 > 1e-20 * (dx * dx + dy * dy + dz * dz)) {
        const s = p.radius / Math.sqrt(len2);
        x += s * px;
        y += s * py;
        z += s * pz;
      }
    }
    out[o] = x;
    out[o + 1] = y;
    out[o + 2] = z;
    return;
  }
  const k = polySupportIndex(v, d, 0);
  out[o] = v.verts[3 * k];
  out[o + 1] = v.verts[3 * k + 1];
  out[o + 2] = v.verts[3 * k + 2];
}

/**
 * The feature of the core of `p` that supports it along the unit direction d[0..2] (pointing from `p`
 * towards the other shape), into `f`.
 */
export function supportingFeature(p: ConvexProxy, v: PolyView, d: Float64Array, f: Feature): void {
  const kind = p.kind;
  f.exact = true;
  // A triangle's corners are in world space; its proxy's rotation is stale (see fillPolyView).
  if (kind === PROXY_TRIANGLE) f.rot.set(IDENTITY_ROT);
  else f.rot.set(p.rot);
  if (kind === PROXY_SPHERE) {
    f.count = 1;
    f.pts[0] = p.pos[0];
    f.pts[1] = p.pos[1];
    f.pts[2] = p.pos[2];
    f.vid[0] = 0;
    f.featureId = 0;
  } else if (kind === PROXY_CAPSULE) capsuleFeature(p, d, f);
  else if (kind === PROXY_CYLINDER) cylinderFeature(p, d, f);
  else polyFeature(v, d, f);
}

function capsuleFeature(p: ConvexProxy, d: Float64Array, f: Feature): void {
  const R = p.rot;
  const h = p.half[1];
  const ux = R[1];
  const uy = R[4];
  const uz = R[7];
  const du = ux * d[0] + uy * d[1] + uz * d[2];
  const pts = f.pts;
  if (du > -SIDE_SIN && du < SIDE_SIN) {
    // Lying across the direction: the whole segment.
    pts[0] = p.pos[0] - h * ux;
    pts[1] = p.pos[1] - h * uy;
    pts[2] = p.pos[2] - h * uz;
    pts[3] = p.pos[0] + h * ux;
    pts[4] = p.pos[1] + h * uy;
    pts[5] = p.pos[2] + h * uz;
    f.vid[0] = 0;
    f.vid[1] = 1;
    f.count = 2;
    f.featureId = 2;
    return;
  }
  const s = du > 0 ? h : -h;
  pts[0] = p.pos[0] + s * ux;
  pts[1] = p.pos[1] + s * uy;
  pts[2] = p.pos[2] + s * uz;
  f.vid[0] = du > 0 ? 1 : 0;
  f.count = 1;
  f.featureId = du > 0 ? 1 : 0;
}

function cylinderFeature(p: ConvexProxy, d: Float64Array, f: Feature): void {
  const R = p.rot;
  const pos = p.pos;
  const h = p.half[1];
  const r = p.radius;
  const ux = R[1];
  const uy = R[4];
  const uz = R[7];
  const dx = d[0];
  const dy = d[1];
  const dz = d[2];
  const du = ux * dx + uy * dy + uz * dz;
  const pts = f.pts;
  if (du >= FACE_COS || du <= -FACE_COS) {
    // A cap faces the direction: its rim as a regular polygon, counter-clockwise seen from outside.
    // The local x and z axes span the cap; x → -z turns counter-clockwise about +y.
    const s = du > 0 ? 1 : -1;
    const cx = pos[0] + s * h * ux;
    const cy = pos[1] + s * h * uy;
    const cz = pos[2] + s * h * uz;
    const zs = -s * r;
    for (let k = 0; k < CAP_POINTS; k++) {
      const a = r * CAP_COS[k];
      const b = zs * CAP_SIN[k];
      pts[3 * k] = cx + a * R[0] + b * R[2];
      pts[3 * k + 1] = cy + a * R[3] + b * R[5];
      pts[3 * k + 2] = cz + a * R[6] + b * R[8];
      f.vid[k] = k;
    }
    f.count = CAP_POINTS;
    f.normal[0] = s * ux;
    f.normal[1] = s * uy;
    f.normal[2] = s * uz;
    f.d = s * (ux * cx + uy * cy + uz * cz);
    f.featureId = s > 0 ? CYL_TOP : CYL_BOTTOM;
    f.exact = false;
    return;
  }
  let px = dx - du * ux;
  let py = dy - du * uy;
  let pz = dz - du * uz;
  const inv = r / Math.sqrt(px * px + py * py + pz * pz);
  px *= inv;
  py *= inv;
  pz *= inv;
  if (du > -SIDE_SIN && du < SIDE_SIN) {
    // The side faces the direction: the generator line through the support point.
    pts[0] = pos[0] - h * ux + px;
    pts[1] = pos[1] - h * uy + py;
    pts[2] = pos[2] - h * uz + pz;
    pts[3] = pos[0] + h * ux + px;
    pts[4] = pos[1] + h * uy + py;
    pts[5] = pos[2] + h * uz + pz;
    f.vid[0] = 0;
    f.vid[1] = 1;
    f.count = 2;
    f.featureId = CYL_SIDE;
    return;
  }
  const s = du > 0 ? h : -h;
  pts[0] = pos[0] + s * ux + px;
  pts[1] = pos[1] + s * uy + py;
  pts[2] = pos[2] + s * uz + pz;
  f.vid[0] = du > 0 ? 1 : 0;
  f.count = 1;
  f.featureId = CYL_RIM;
}

/** Writes face `face` of the polytope into `f` (at most MAX_FEATURE_POINTS vertices). */
export function polyFace(v: PolyView, face: number, f: Feature): void {
  const start = v.faceStart[face];
  let n = v.faceStart[face + 1] - start;
  if (n > MAX_FEATURE_POINTS) n = MAX_FEATURE_POINTS;
  const verts = v.verts;
  const pts = f.pts;
  for (let k = 0; k < n; k++) {
    const i = v.faceVertices[start + k];
    pts[3 * k] = verts[3 * i];
    pts[3 * k + 1] = verts[3 * i + 1];
    pts[3 * k + 2] = verts[3 * i + 2];
    f.vid[k] = i;
  }
  f.count = n;
  f.normal[0] = v.planes[4 * face];
  f.normal[1] = v.planes[4 * face + 1];
  f.normal[2] = v.planes[4 * face + 2];
  f.d = v.planes[4 * face + 3];
  f.featureId = face;
  f.exact = true;
  f.rot.set(v.rot);
}

/** The face most anti-parallel to d[0..2] (the incident face against a reference normal d). */
export function mostAntiParallelFace(v: PolyView, d: Float64Array): number {
  let best = 0;
  let bestDot = Infinity;
  const planes = v.planes;
  for (let f = 0; f < v.faceCount; f++) {
    const s = planes[4 * f] * d[0] + planes[4 * f + 1] * d[1] + planes[4 * f + 2] * d[2];
    if (s < bestDot) {
      bestDot = s;
      best = f;
    }
  }
  return best;
}

function polyFeature(v: PolyView, d: Float64Array, f: Feature): void {
  const dx = d[0];
  const dy = d[1];
  const dz = d[2];
  const planes = v.planes;
  let bestFace = 0;
  let bestDot = -Infinity;
  for (let k = 0; k < v.faceCount; k++) {
    const s = planes[4 * k] * dx + planes[4 * k + 1] * dy + planes[4 * k + 2] * dz;
    if (s > bestDot) {
      bestDot = s;
      bestFace = k;
    }
  }
  if (bestDot >= FACE_COS) {
    polyFace(v, bestFace, f);
    return;
  }
  // Not a face: the support vertex, or an edge from it that is nearly perpendicular to d.
  const s = polySupportIndex(v, d, 0);
  const verts = v.verts;
  const sDot = dx * verts[3 * s] + dy * verts[3 * s + 1] + dz * verts[3 * s + 2];
  let bestEdge = -1;
  let bestOther = 0;
  let bestDrop = Infinity;
  for (let e = 0; e < v.edgeCount; e++) {
    const i = v.edges[2 * e];
    const j = v.edges[2 * e + 1];
    if (i !== s && j !== s) continue;
    const o = i === s ? j : i;
    const ex = verts[3 * o] - verts[3 * s];
    const ey = verts[3 * o + 1] - verts[3 * s + 1];
    const ez = verts[3 * o + 2] - verts[3 * s + 2];
    const len = Math.sqrt(ex * ex + ey * ey + ez * ez);
    // Drop along d per unit length: the sine of the edge's tilt away from perpendicular.
    const drop = (sDot - (dx * verts[3 * o] + dy * verts[3 * o + 1] + dz * verts[3 * o + 2])) / len;
    if (drop < bestDrop) {
      bestDrop = drop;
      bestEdge = e;
      bestOther = o;
    }
  }
  const pts = f.pts;
  pts[0] = verts[3 * s];
  pts[1] = verts[3 * s + 1];
  pts[2] = verts[3 * s + 2];
  f.vid[0] = s;
  if (bestEdge >= 0 && bestDrop < SIDE_SIN) {
    pts[3] = verts[3 * bestOther];
    pts[4] = verts[3 * bestOther + 1];
    pts[5] = verts[3 * bestOther + 2];
    f.vid[1] = bestOther;
    f.count = 2;
    f.featureId = 1024 + bestEdge;
    return;
  }
  f.count = 1;
  f.featureId = 2048 + s;
}
