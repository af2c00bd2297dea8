import { type BodyStore, BOX, CAPSULE, COMPOUND, CYLINDER, HEIGHTFIELD, HULL, MESH, SPHERE } from "../dynamics/body-store.ts";
import type { CompoundGeometry } from "../geometry/compound.ts";
import type { ConvexHull } from "../geometry/convex-hull.ts";
import { raycastTriangles, type TriangleRayHit } from "../geometry/triangle-raycast.ts";
import type { TriangleSource } from "../geometry/triangle-source.ts";
import { inverseRotateVec, rotateVec } from "../math/quat.ts";

/** The ray in the body's frame, and the hit normal (in the frame of whatever was hit, then world). */
const o = new Float64Array(3);
const d = new Float64Array(3);
const n = new Float64Array(3);
/** The ray in a compound child's frame. */
const childO = new Float64Array(3);
const childD = new Float64Array(3);
const childOffset = new Float64Array(3);
/**
 * In: the largest t of interest; out: the t of a hit. A typed array rather than an argument and a
 * return value: V8 boxes doubles crossing calls it does not inline.
 */
const rayT = new Float64Array(1);
const triangleHit: TriangleRayHit = { t: 0, normal: new Float64Array(3), triangle: -1 };

/** Results of the local convex tests: no hit, a hit (t in rayT[0], normal in `n`), origin inside. */
const MISS = 0;
const HIT = 1;
const INSIDE = 2;

/** Below this |component| a unit direction is taken as parallel to a plane (as the box test always did). */
const PARALLEL = 1e-15;

/**
 * Ray (origin, unit direction) against one body. On a hit with 0 <= t <= maxT writes
 * [t, nx, ny, nz] (world normal at the hit) into `out` and returns true. A ray starting inside a convex
 * shape (or inside a compound's child) hits at t = 0 with the normal facing back along the ray. Meshes
 * and height fields are two-sided surfaces: their normal faces against the ray whichever side it comes from.
 */
export function raycastBody(
  bodies: BodyStore,
  slot: number,
  ox: number,
  oy: number,
  oz: number,
  dx: number,
  dy: number,
  dz: number,
  maxT: number,
  out: Float64Array,
): boolean {
  const s3 = slot * 3;
  const px = bodies.pos[s3];
  const py = bodies.pos[s3 + 1];
  const pz = bodies.pos[s3 + 2];
  const shape = bodies.shape[slot];
  if (shape === SPHERE) {
    const r = bodies.half[s3];
    const mx = ox - px;
    const my = oy - py;
    const mz = oz - pz;
    const b = mx * dx + my * dy + mz * dz;
    const c = mx * mx + my * my + mz * mz - r * r;
    if (c <= 0) {
      out[0] = 0;
      out[1] = -dx;
      out[2] = -dy;
      out[3] = -dz;
      return true;
    }
    if (b > 0) return false;
    const disc = b * b - c;
    if (disc < 0) return false;
    const t = -b - Math.sqrt(disc);
    if (t > maxT) return false;
    out[0] = t;
    out[1] = (mx + t * dx) / r;
    out[2] = (my + t * dy) / r;
    out[3] = (mz + t * dz) / r;
    return true;
  }
  // Every other shape is tested in the body's frame.
  const q4 = slot * 4;
  o[0] = ox - px;
  o[1] = oy - py;
  o[2] = oz - pz;
  inverseRotateVec(o, 0, bodies.rot, q4, o, 0);
  d[0] = dx;
  d[1] = dy;
  d[2] = dz;
  inverseRotateVec(d, 0, bodies.rot, q4, d, 0);
  rayT[0] = maxT;
  let result: number;
  if (shape === MESH || shape === HEIGHTFIELD) {
    const source = bodies.geometry[slot] as unknown as TriangleSource;
    if (!raycastTriangles(source, o, d, maxT, triangleHit)) return false;
    rayT[0] = triangleHit.t;
    n.set(triangleHit.normal);
    result = HIT;
  } else if (shape === COMPOUND) {
    result = rayCompound(bodies.geometry[slot] as CompoundGeometry);
  } else {
    result = rayConvex(shape, bodies.half, s3, bodies.geometry[slot] as ConvexHull | null, o, d);
  }
  if (result === MISS) return false;
  if (result === INSIDE) {
    out[0] = 0;
    out[1] = -dx;
    out[2] = -dy;
    out[3] = -dz;
    return true;
  }
  rotateVec(n, 0, bodies.rot, q4, n, 0);
  out[0] = rayT[0];
  out[1] = n[0];
  out[2] = n[1];
  out[3] = n[2];
  return true;
}

/**
 * A convex shape of kind `kind` (ShapeTypeCode: sphere, box, capsule, cylinder, hull) in its own frame,
 * dimensions at half[h .. h + 2] (as BodyStore.half), against the ray ro + t · rd, t in [0, rayT[0]].
 */
function rayConvex(kind: number, half: Float64Array, h: number, hull: ConvexHull | null, ro: Float64Array, rd: Float64Array): number {
  if (kind === BOX) return rayBox(half, h, ro, rd);
  if (kind === CAPSULE) return rayCapsule(half, h, ro, rd);
  if (kind === CYLINDER) return rayCylinder(half, h, ro, rd);
  if (kind === HULL) return rayHull(hull!, ro, rd);
  if (kind === SPHERE) return raySphereAt(half[h], 0, ro, rd);
  return MISS;
}

/** Slab test against the box of half extents half[h .. h + 2] (Kay & Kajiya; Ericson, Real-Time Collision Detection 5.3.3). */
function rayBox(half: Float64Array, h: number, ro: Float64Array, rd: Float64Array): number {
  let tmin = 0;
  let tmax = rayT[0];
  let axis = -1;
  let inside = true;
  for (let k = 0; k < 3; k++) {
    const e = half[h + k];
    if (Math.abs(ro[k]) > e) inside = false;
    if (Math.abs(rd[k]) < PARALLEL) {
      if (Math.abs(ro[k]) > e) return MISS;
      continue;
    }
    const inv = 1 / rd[k];
    let t1 = (-e - ro[k]) * inv;
    let t2 = (e - ro[k]) * inv;
    if (t1 > t2) {
      const t = t1;
      t1 = t2;
      t2 = t;
    }
    if (t1 > tmin) {
      tmin = t1;
      axis = k;
    }
    if (t2 < tmax) tmax = t2;
    if (tmin > tmax) return MISS;
  }
  if (inside || axis < 0) return INSIDE;
  n[0] = n[1] = n[2] = 0;
  n[axis] = rd[axis] > 0 ? -1 : 1;
  rayT[0] = tmin;
  return HIT;
}

/**
 * Sphere of radius r centred at (0, cy, 0), for a ray from outside it (the capsule's caps) or any ray
 * (a compound's sphere child, cy = 0). Ericson 5.3.2.
 */
function raySphereAt(r: number, cy: number, ro: Float64Array, rd: Float64Array): number {
  const mx = ro[0];
  const my = ro[1] - cy;
  const mz = ro[2];
  const b = mx * rd[0] + my * rd[1] + mz * rd[2];
  const c = mx * mx + my * my + mz * mz - r * r;
  if (c <= 0) return INSIDE;
  if (b > 0) return MISS;
  const disc = b * b - c;
  if (disc < 0) return MISS;
  const t = -b - Math.sqrt(disc);
  if (t > rayT[0]) return MISS;
  rayT[0] = t;
  n[0] = (mx + t * rd[0]) / r;
  n[1] = (my + t * rd[1]) / r;
  n[2] = (mz + t * rd[2]) / r;
  return HIT;
}

/**
 * Capsule along the local y axis (radius half[h], segment half height half[h + 1]): the union of the
 * side of an infinite cylinder between the segment's ends and the two end spheres. The first entry into a
 * union of solids is the earliest entry into any of them (the flat ends of the cylinder part lie inside
 * the spheres, so only its side is tested).
 */
function rayCapsule(half: Float64Array, h: number, ro: Float64Array, rd: Float64Array): number {
  const r = half[h];
  const hh = half[h + 1];
  const ox = ro[0];
  const oy = ro[1];
  const oz = ro[2];
  const cy = oy < -hh ? -hh : oy > hh ? hh : oy;
  if (ox * ox + (oy - cy) * (oy - cy) + oz * oz <= r * r) return INSIDE;
  const limit = rayT[0];
  let best = limit;
  let found = false;
  let nx = 0;
  let ny = 0;
  let nz = 0;
  const a = rd[0] * rd[0] + rd[2] * rd[2];
  if (a > PARALLEL * PARALLEL) {
    const b = ox * rd[0] + oz * rd[2];
    const c = ox * ox + oz * oz - r * r;
    const disc = b * b - a * c;
    if (disc >= 0) {
      const t = (-b - Math.sqrt(disc)) / a;
      const y = oy + t * rd[1];
      if (t >= 0 && t <= best && y >= -hh && y <= hh) {
        best = t;
        found = true;
        nx = (ox + t * rd[0]) / r;
        nz = (oz + t * rd[2]) / r;
      }
    }
  }
  for (let end = -1; end <= 1; end += 2) {
    rayT[0] = best;
    if (raySphereAt(r, end * hh, ro, rd) === HIT && (!found || rayT[0] < best)) {
      best = rayT[0];
      found = true;
      nx = n[0];
      ny = n[1];
      nz = n[2];
    }
  }
  if (!found) return MISS;
  rayT[0] = best;
  n[0] = nx;
  n[1] = ny;
  n[2] = nz;
  return HIT;
}

/**
 * Solid cylinder along the local y axis (radius half[h], half height half[h + 1]): the ray clipped
 * against the slab between the caps and the inside of the infinite cylinder; the later entry decides
 * the face (Ericson 5.3.7 works on a segment; this is the same clipping on t intervals).
 */
function rayCylinder(half: Float64Array, h: number, ro: Float64Array, rd: Float64Array): number {
  const r = half[h];
  const hh = half[h + 1];
  const ox = ro[0];
  const oy = ro[1];
  const oz = ro[2];
  const c = ox * ox + oz * oz - r * r;
  if (c <= 0 && oy >= -hh && oy <= hh) return INSIDE;
  let tEnter = 0;
  let tExit = rayT[0];
  // 0: nothing entered after t = 0 (the origin is inside), 1: a cap, 2: the side.
  let face = 0;
  if (Math.abs(rd[1]) < PARALLEL) {
    if (oy < -hh || oy > hh) return MISS;
  } else {
    const inv = 1 / rd[1];
    let t1 = (-hh - oy) * inv;
    let t2 = (hh - oy) * inv;
    if (t1 > t2) {
      const t = t1;
      t1 = t2;
      t2 = t;
    }
    if (t1 > tEnter) {
      tEnter = t1;
      face = 1;
    }
    if (t2 < tExit) tExit = t2;
    if (tEnter > tExit) return MISS;
  }
  const a = rd[0] * rd[0] + rd[2] * rd[2];
  if (a <= PARALLEL * PARALLEL) {
    if (c > 0) return MISS;
  } else {
    const b = ox * rd[0] + oz * rd[2];
    const disc = b * b - a * c;
    if (disc < 0) return MISS;
    const root = Math.sqrt(disc);
    const t1 = (-b - root) / a;
    const t2 = (-b + root) / a;
    if (t1 > tEnter) {
      tEnter = t1;
      face = 2;
    }
    if (t2 < tExit) tExit = t2;
  }
  if (tEnter > tExit) return MISS;
  if (face === 0) return INSIDE;
  rayT[0] = tEnter;
  if (face === 1) {
    n[0] = 0;
    n[1] = rd[1] > 0 ? -1 : 1;
    n[2] = 0;
  } else {
    const x = ox + tEnter * rd[0];
    const z = oz + tEnter * rd[2];
    const len = Math.sqrt(x * x + z * z);
    n[0] = x / len;
    n[1] = 0;
    n[2] = z / len;
  }
  return HIT;
}

/**
 * Convex polyhedron: the ray clipped against every face plane, entering through planes it crosses
 * inwards and leaving through those it crosses outwards (Kay & Kajiya's slabs generalised; Ericson 5.3.8).
 * The last plane entered is the face hit.
 */
function rayHull(hull: ConvexHull, ro: Float64Array, rd: Float64Array): number {
  const p = hull.planes;
  let tEnter = 0;
  let tExit = rayT[0];
  let face = -1;
  let inside = true;
  for (let f = 0; f < hull.faceCount; f++) {
    const f4 = 4 * f;
    const dist = p[f4] * ro[0] + p[f4 + 1] * ro[1] + p[f4 + 2] * ro[2] - p[f4 + 3];
    const denom = p[f4] * rd[0] + p[f4 + 1] * rd[1] + p[f4 + 2] * rd[2];
    if (dist > 0) inside = false;
    if (Math.abs(denom) < PARALLEL) {
      if (dist > 0) return MISS;
      continue;
    }
    const t = -dist / denom;
    if (denom < 0) {
      if (t > tEnter) {
        tEnter = t;
        face = f;
      }
    } else if (t < tExit) tExit = t;
    if (tEnter > tExit) return MISS;
  }
  if (inside || face < 0) return INSIDE;
  rayT[0] = tEnter;
  n[0] = p[4 * face];
  n[1] = p[4 * face + 1];
  n[2] = p[4 * face + 2];
  return HIT;
}

/**
 * The nearest child of a compound hit by the body-frame ray (o, d), each child tested in its own frame;
 * equal distances go to the lower child. The normal comes back in the body frame.
 */
function rayCompound(g: CompoundGeometry): number {
  let best = rayT[0];
  let bestChild = -1;
  let nx = 0;
  let ny = 0;
  let nz = 0;
  for (let i = 0; i < g.childCount; i++) {
    const i3 = 3 * i;
    const mx = o[0] - g.position[i3];
    const my = o[1] - g.position[i3 + 1];
    const mz = o[2] - g.position[i3 + 2];
    // Skip children whose bounding sphere the ray misses.
    const r = g.boundRadius[i];
    const b = mx * d[0] + my * d[1] + mz * d[2];
    const c = mx * mx + my * my + mz * mz - r * r;
    if (c > 0 && (b > 0 || b * b < c)) continue;
    childOffset[0] = mx;
    childOffset[1] = my;
    childOffset[2] = mz;
    inverseRotateVec(childO, 0, g.rotation, 4 * i, childOffset, 0);
    inverseRotateVec(childD, 0, g.rotation, 4 * i, d, 0);
    rayT[0] = best;
    const result = rayConvex(g.kind[i], g.half, i3, g.hull[i], childO, childD);
    if (result === INSIDE) return INSIDE;
    if (result === HIT && (bestChild < 0 || rayT[0] < best)) {
      best = rayT[0];
      bestChild = i;
      rotateVec(n, 0, g.rotation, 4 * i, n, 0);
      nx = n[0];
      ny = n[1];
      nz = n[2];
    }
  }
  if (bestChild < 0) return MISS;
  rayT[0] = best;
  n[0] = nx;
  n[1] = ny;
  n[2] = nz;
  return HIT;
}
