import { type ManifoldOut, NORMAL_OF_A, NORMAL_OF_B, NORMAL_OF_NEITHER } from "../manifold.ts";
import { build, buildManifold, faceOwner, featA, featB, REF_A, REF_B, REF_NONE } from "./clip.ts";
import { epa, epaOut } from "./epa.ts";
import { closestSegments, GJK_BEYOND, GJK_SEPARATED, gjk, gjkIn, gjkOut, seg, segOut, startDir } from "./gjk.ts";
import { fillPolyView, PolyView } from "./poly-view.ts";
import { type ConvexProxy, PROXY_BOX, PROXY_CAPSULE, PROXY_CYLINDER, PROXY_HULL, PROXY_SPHERE, PROXY_TRIANGLE } from "./proxy.ts";
import { sphereClosest } from "./sphere-closest.ts";
import { SAT_EDGE, SAT_FACE_A, sat, satIn, satInt, satOut } from "./sat.ts";
import { mostAntiParallelFace, polyFace, supportCore, supportingFeature } from "./support.ts";
import { triangleNormalAllowed } from "./triangle-edges.ts";

/**
 * Contact manifold between any two convex proxies (sphere, box, capsule, cylinder, hull, triangle; a
 * triangle pair gives nothing). Same contract as the other narrow-phase functions (manifold.ts): at most
 * 4 points with separation <= out.margin, normal from A to B, ids stable per feature pair and mixed with
 * the proxies' ids. The normal's owner is always NORMAL_OF_NEITHER here; `collideConvexOwned` names the
 * body whose face the normal is, for callers that recycle manifolds.
 *
 * - Two polytopes (box, hull, triangle): separating axis test (sat.ts), then the reference face clips
 *   the incident face, or the two edges of an edge axis meet at one point.
 * - Two cores (sphere, capsule): closest points of their segments. A sphere against a box, cylinder or
 *   triangle: the closest point in closed form (sphere-closest.ts).
 * - Otherwise GJK between the cores; if they overlap, EPA (or, against a triangle, its face normal).
 *   The supporting features along the normal make the manifold (clip.ts).
 * - A normal that a triangle's inactive edge or vertex would produce is replaced by its face normal.
 */

const viewA = new PolyView();
const viewB = new PolyView();
const dir = new Float64Array(3);
/** Bounding-sphere centre xyz and radius of each proxy. */
const centerA = new Float64Array(4);
const centerB = new Float64Array(4);
const sa = new Float64Array(3);
const sb = new Float64Array(3);
/** Closest (GJK) or deepest (EPA) points of the cores: A's xyz, B's xyz. */
const witness = new Float64Array(6);

function isPoly(kind: number): boolean {
  return kind === PROXY_BOX || kind === PROXY_HULL || kind === PROXY_TRIANGLE;
}

function isCore(kind: number): boolean {
  return kind === PROXY_SPHERE || kind === PROXY_CAPSULE;
}

export function collideConvex(out: ManifoldOut, a: ConvexProxy, b: ConvexProxy): void {
  out.count = 0;
  out.normalOwner = NORMAL_OF_NEITHER;
  faceOwner[0] = NORMAL_OF_NEITHER;
  const ka = a.kind;
  const kb = b.kind;
  if (ka === PROXY_TRIANGLE && kb === PROXY_TRIANGLE) return;
  // Bounding spheres first: most pairs the broad phase hands over are apart.
  boundingSphere(a, centerA);
  boundingSphere(b, centerB);
  const rA = centerA[3];
  const rB = centerB[3];
  const dx = centerB[0] - centerA[0];
  const dy = centerB[1] - centerA[1];
  const dz = centerB[2] - centerA[2];
  const reach = rA + rB + out.margin;
  if (dx * dx + dy * dy + dz * dz > reach * reach) return;
  const mix = mixIds(a.id, b.id);
  if (isPoly(ka)) fillPolyView(viewA, a);
  if (isPoly(kb)) fillPolyView(viewB, b);
  if (isPoly(ka) && isPoly(kb)) polytopes(out, a, b, mix);
  else if (isCore(ka) && isCore(kb)) cores(out, a, b, mix);
  else if (ka === PROXY_SPHERE && sphereClosest(out, a, b, true, mix) === 1) {
    if (out.count > 0 && kb === PROXY_TRIANGLE) fixTriangleNormal(out, a, b, mix);
  } else if (kb === PROXY_SPHERE && sphereClosest(out, b, a, false, mix) === 1) {
    if (out.count > 0 && ka === PROXY_TRIANGLE) fixTriangleNormal(out, a, b, mix);
  } else general(out, a, b, mix);
}

/**
 * `collideConvex`, with the normal's owner set, so the contact store may recycle the manifold while the
 * pair's relative pose stays within its thresholds (contact-store.ts tryRecycle). When the manifold was
 * clipped against a face of one side the normal is that face's and turns with its body: that side owns
 * it. An edge or point contact's normal (two capsules, crossing edges) depends on both poses; it is kept
 * in one side's frame, and until the manifold is rebuilt it is off by at most the relative turn the
 * thresholds allow (about half a degree), as a recycled face contact's anchors are. That side is B when A
 * is a sphere, so the sphere is the incident side, whose point the refresh keeps under its centre.
 */
export function collideConvexOwned(out: ManifoldOut, a: ConvexProxy, b: ConvexProxy): void {
  collideConvex(out, a, b);
  if (out.count === 0) return;
  const face = faceOwner[0];
  out.normalOwner = face !== NORMAL_OF_NEITHER ? face : a.kind === PROXY_SPHERE ? NORMAL_OF_B : NORMAL_OF_A;
}

/** Writes the proxy's bounding-sphere centre into c[0..2], its radius into c[3]. */
function boundingSphere(p: ConvexProxy, c: Float64Array): void {
  const kind = p.kind;
  if (kind === PROXY_TRIANGLE) {
    const t = p.tri;
    const cx = (t[0] + t[3] + t[6]) / 3;
    const cy = (t[1] + t[4] + t[7]) / 3;
    const cz = (t[2] + t[5] + t[8]) / 3;
    c[0] = cx;
    c[1] = cy;
    c[2] = cz;
    let r2 = 0;
    for (let k = 0; k < 3; k++) {
      const x = t[3 * k] - cx;
      const y = t[3 * k + 1] - cy;
      const z = t[3 * k + 2] - cz;
      const q = x * x + y * y + z * z;
      if (q > r2) r2 = q;
    }
    c[3] = Math.sqrt(r2);
    return;
  }
  c[0] = p.pos[0];
  c[1] = p.pos[1];
  c[2] = p.pos[2];
  const h = p.half;
  if (kind === PROXY_SPHERE) c[3] = p.radius;
  else if (kind === PROXY_BOX) c[3] = Math.sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
  else if (kind === PROXY_CAPSULE) c[3] = h[1] + p.radius;
  else if (kind === PROXY_CYLINDER) c[3] = Math.sqrt(h[1] * h[1] + p.radius * p.radius);
  else c[3] = p.hull!.boundRadius;
}

/** A well-mixed 32-bit hash of the two proxy ids, xor-ed into every feature id. */
function mixIds(ia: number, ib: number): number {
  let h = Math.imul(ia ^ 0x5bd1e995, 0x9e3779b1) ^ Math.imul((ib + 0x7f4a7c15) | 0, 0x85ebca77);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h | 0;
}

/** For a triangle: the face (0 front, 1 back) whose side the point c is on (front on ties). */
function facingSide(v: PolyView, c: Float64Array): number {
  const P = v.planes;
  return P[0] * c[0] + P[1] * c[1] + P[2] * c[2] - P[3] >= 0 ? 0 : 1;
}

function polytopes(out: ManifoldOut, a: ConvexProxy, b: ConvexProxy, mix: number): void {
  const triA = a.kind === PROXY_TRIANGLE;
  const triB = b.kind === PROXY_TRIANGLE;
  const faceA = triA ? facingSide(viewA, centerB) : -1;
  const faceB = triB ? facingSide(viewB, centerA) : -1;
  satIn[0] = out.margin;
  if (sat(viewA, viewB, faceA, faceB, a.triEdges, b.triEdges) === 0) return;
  build[0] = satOut[0];
  build[1] = satOut[1];
  build[2] = satOut[2];
  build[3] = 0;
  build[4] = 0;
  const kind = satInt[0];
  if (kind === SAT_EDGE) {
    if (satInt[1] >= 0) {
      edgeFeature(viewA, satInt[1], featA);
      edgeFeature(viewB, satInt[2], featB);
    } else {
      supportingFeature(a, viewA, build, featA);
      dir[0] = -build[0];
      dir[1] = -build[1];
      dir[2] = -build[2];
      supportingFeature(b, viewB, dir, featB);
    }
    buildManifold(out, REF_NONE, mix);
  } else if (kind === SAT_FACE_A) {
    polyFace(viewA, satInt[1], featA);
    polyFace(viewB, mostAntiParallelFace(viewB, featA.normal), featB);
    buildManifold(out, REF_A, mix);
  } else {
    polyFace(viewB, satInt[1], featB);
    polyFace(viewA, mostAntiParallelFace(viewA, featB.normal), featA);
    buildManifold(out, REF_B, mix);
  }
  if (out.count > 0 && (triA || triB)) fixTriangleNormal(out, a, b, mix);
}

/** Edge e of a polytope as a two-point feature. */
function edgeFeature(v: PolyView, e: number, f: typeof featA): void {
  const i = v.edges[2 * e];
  const j = v.edges[2 * e + 1];
  for (let c = 0; c < 3; c++) {
    f.pts[c] = v.verts[3 * i + c];
    f.pts[3 + c] = v.verts[3 * j + c];
  }
  f.vid[0] = i;
  f.vid[1] = j;
  f.count = 2;
  f.featureId = 1024 + e;
  f.exact = true;
}

/** Sphere and capsule pairs: closest points of the core segments. */
function cores(out: ManifoldOut, a: ConvexProxy, b: ConvexProxy, mix: number): void {
  coreSegment(a, 0);
  coreSegment(b, 6);
  closestSegments();
  let nx = segOut[5] - segOut[2];
  let ny = segOut[6] - segOut[3];
  let nz = segOut[7] - segOut[4];
  const d = Math.sqrt(nx * nx + ny * ny + nz * nz);
  const rA = a.radius;
  const rB = b.radius;
  if (d - rA - rB > out.margin) return;
  if (d > 1e-12) {
    nx /= d;
    ny /= d;
    nz /= d;
  } else {
    // Cores touching: across both axes if the capsules cross, else away from A's axis, else up.
    degenerateNormal(a, b);
    nx = dir[0];
    ny = dir[1];
    nz = dir[2];
  }
  build[0] = nx;
  build[1] = ny;
  build[2] = nz;
  build[3] = rA;
  build[4] = rB;
  featuresAlong(a, b);
  buildManifold(out, REF_NONE, mix);
}

/** seg[o..o+5] = the core segment of a sphere (a point twice) or capsule. */
function coreSegment(p: ConvexProxy, o: number): void {
  const h = p.kind === PROXY_CAPSULE ? p.half[1] : 0;
  const R = p.rot;
  for (let c = 0; c < 3; c++) {
    seg[o + c] = p.pos[c] - h * R[3 * c + 1];
    seg[o + 3 + c] = p.pos[c] + h * R[3 * c + 1];
  }
}

/** dir = a unit normal for cores that touch: the capsules' common perpendicular, else any sensible one. */
function degenerateNormal(a: ConvexProxy, b: ConvexProxy): void {
  const capA = a.kind === PROXY_CAPSULE;
  const capB = b.kind === PROXY_CAPSULE;
  const ux = capA ? a.rot[1] : capB ? b.rot[1] : 0;
  const uy = capA ? a.rot[4] : capB ? b.rot[4] : 0;
  const uz = capA ? a.rot[7] : capB ? b.rot[7] : 0;
  let x = 0;
  let y = 1;
  let z = 0;
  if (capA && capB) {
    x = uy * b.rot[7] - uz * b.rot[4];
    y = uz * b.rot[1] - ux * b.rot[7];
    z = ux * b.rot[4] - uy * b.rot[1];
  } else if (capA || capB) {
    // Perpendicular to the axis: y minus its component along the axis, or x if the axis is vertical.
    x = -uy * ux;
    y = 1 - uy * uy;
    z = -uy * uz;
    if (x * x + y * y + z * z < 1e-6) {
      x = 1 - ux * ux;
      y = -ux * uy;
      z = -ux * uz;
    }
  }
  let len = Math.sqrt(x * x + y * y + z * z);
  if (len < 1e-9) {
    x = 0;
    y = 1;
    z = 0;
    len = 1;
  }
  // Point from A's centre towards B's.
  const s = x * (b.pos[0] - a.pos[0]) + y * (b.pos[1] - a.pos[1]) + z * (b.pos[2] - a.pos[2]) < 0 ? -1 : 1;
  dir[0] = (s * x) / len;
  dir[1] = (s * y) / len;
  dir[2] = (s * z) / len;
}

/** featA, featB = supporting features of A along build[0..2] and of B against it. */
function featuresAlong(a: ConvexProxy, b: ConvexProxy): void {
  supportingFeature(a, viewA, build, featA);
  dir[0] = -build[0];
  dir[1] = -build[1];
  dir[2] = -build[2];
  supportingFeature(b, viewB, dir, featB);
}

/** Pairs with a cylinder, or a core against a polytope: GJK, then EPA when the cores overlap. */
function general(out: ManifoldOut, a: ConvexProxy, b: ConvexProxy, mix: number): void {
  const rA = isCore(a.kind) ? a.radius : 0;
  const rB = isCore(b.kind) ? b.radius : 0;
  const triangle = a.kind === PROXY_TRIANGLE || b.kind === PROXY_TRIANGLE;
  startDir[0] = centerA[0] - centerB[0];
  startDir[1] = centerA[1] - centerB[1];
  startDir[2] = centerA[2] - centerB[2];
  gjkIn[0] = out.margin + rA + rB;
  const status = gjk(a, viewA, b, viewB);
  if (status === GJK_BEYOND) return;
  build[3] = rA;
  build[4] = rB;
  if (status === GJK_SEPARATED) {
    const d = gjkOut[0];
    if (d - rA - rB > out.margin) return;
    for (let c = 0; c < 3; c++) {
      build[c] = (gjkOut[4 + c] - gjkOut[1 + c]) / d;
      witness[c] = gjkOut[1 + c];
      witness[3 + c] = gjkOut[4 + c];
    }
  } else if (triangle) {
    triangleFaceContact(out, a, b, mix);
    return;
  } else if (epa(a, viewA, b, viewB) === 1) {
    for (let c = 0; c < 3; c++) {
      build[c] = epaOut[c];
      witness[c] = epaOut[4 + c];
      witness[3 + c] = epaOut[7 + c];
    }
  } else {
    supportDepth(a, b);
  }
  featuresAlong(a, b);
  if (buildManifold(out, REF_NONE, mix) === 0) {
    // The features' clipping missed (a point just past a face's edge): the closest points alone.
    for (let c = 0; c < 3; c++) {
      featA.pts[c] = witness[c];
      featB.pts[c] = witness[3 + c];
    }
    featA.count = 1;
    featB.count = 1;
    buildManifold(out, REF_NONE, mix);
  }
  if (out.count > 0 && triangle) fixTriangleNormal(out, a, b, mix);
}

/**
 * Fallback when EPA finds no volume (flat, touching cores): the normal between the centres, the depth
 * from the supports along it.
 */
function supportDepth(a: ConvexProxy, b: ConvexProxy): void {
  let nx = centerB[0] - centerA[0];
  let ny = centerB[1] - centerA[1];
  let nz = centerB[2] - centerA[2];
  let len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (len < 1e-12) {
    nx = 0;
    ny = 1;
    nz = 0;
    len = 1;
  }
  build[0] = nx / len;
  build[1] = ny / len;
  build[2] = nz / len;
  supportCore(a, viewA, build, sa, 0);
  dir[0] = -build[0];
  dir[1] = -build[1];
  dir[2] = -build[2];
  supportCore(b, viewB, dir, sb, 0);
  for (let c = 0; c < 3; c++) {
    witness[c] = sa[c];
    witness[3 + c] = sb[c];
  }
}

/** If the manifold's normal is a seam artefact of a triangle's inactive edge or vertex, redo it on the face. */
function fixTriangleNormal(out: ManifoldOut, a: ConvexProxy, b: ConvexProxy, mix: number): void {
  const triB = b.kind === PROXY_TRIANGLE;
  const s = triB ? -1 : 1;
  dir[0] = s * out.normal[0];
  dir[1] = s * out.normal[1];
  dir[2] = s * out.normal[2];
  if (triangleNormalAllowed(triB ? viewB : viewA, triB ? b.triEdges : a.triEdges, dir) === 1) return;
  triangleFaceContact(out, a, b, mix);
}

/** The manifold with the triangle's face (the side the other shape's centre is on) as reference. */
function triangleFaceContact(out: ManifoldOut, a: ConvexProxy, b: ConvexProxy, mix: number): void {
  out.count = 0;
  const triB = b.kind === PROXY_TRIANGLE;
  const tv = triB ? viewB : viewA;
  const face = facingSide(tv, triB ? centerA : centerB);
  const refFeat = triB ? featB : featA;
  const incFeat = triB ? featA : featB;
  polyFace(tv, face, refFeat);
  // Normal from A to B: against the face's outward normal when the triangle is B.
  const n = refFeat.normal;
  build[0] = triB ? 0 - n[0] : n[0];
  build[1] = triB ? 0 - n[1] : n[1];
  build[2] = triB ? 0 - n[2] : n[2];
  build[3] = isCore(a.kind) ? a.radius : 0;
  build[4] = isCore(b.kind) ? b.radius : 0;
  const other = triB ? a : b;
  const ov = triB ? viewA : viewB;
  if (isPoly(other.kind)) polyFace(ov, mostAntiParallelFace(ov, refFeat.normal), incFeat);
  else {
    dir[0] = -refFeat.normal[0];
    dir[1] = -refFeat.normal[1];
    dir[2] = -refFeat.normal[2];
    supportingFeature(other, ov, dir, incFeat);
  }
  buildManifold(out, triB ? REF_B : REF_A, mix);
}
