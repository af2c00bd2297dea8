/**
 * Builds a ConvexHull from a point cloud, once, at body creation. Quickhull (Barber, Dobkin & Huhdanpaa,
 * "The Quickhull Algorithm for Convex Hulls", 1996): start from a tetrahedron of extreme points, then
 * repeatedly add the point farthest outside the current triangle hull, replacing the faces it sees with
 * a fan from the point to their horizon. Adjacent triangles that lie in one plane (within a tolerance
 * relative to the cloud's size) are then merged into convex polygons, and vertices that end up inside a
 * face or on a straight edge are dropped, so a box's 8 corners give 6 quads.
 *
 * Deterministic: only + - * / and Math.sqrt, ties broken by the lowest point or triangle index, so the
 * result depends only on the input order and values.
 */
import { matrixFromQuat } from "../math/quat.ts";
import { ConvexHull } from "./convex-hull.ts";

/** A point cloud that has no proper 3D hull, or too many points; the message can be shown as-is. */
export class HullError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HullError";
  }
}

export const MIN_HULL_POINTS = 4;
export const MAX_HULL_POINTS = 256;
/** A point is outside a face when it is farther than this times the cloud's largest extent. */
const OUTSIDE_TOLERANCE = 1e-9;
/**
 * Triangles are merged into one face when their vertices are within this times the extent of one plane;
 * the same thickness makes a cloud count as flat (or a line).
 */
const PLANAR_TOLERANCE = 1e-6;
/**
 * Added to the tolerances, times the largest coordinate: points far from their frame's origin carry
 * that much rounding (about float32's precision, for data that passed through 32-bit floats, and far
 * above float64's for the outside test), which the cloud's extent alone would not cover.
 */
const ROUNDING_PLANAR = 1e-7;
const ROUNDING_OUTSIDE = 1e-14;
/** Clouds smaller than this times their distance from the origin count as one point. */
const COINCIDENT_TOLERANCE = 1e-9;
const DEGENERATE = "these points are too close to degenerate to build a hull";

const scratch = new Float64Array(3);

/** (b - a) × (c - a) for points a, b, c of xyz into out[0..2]; returns its squared length. */
function triangleCross(xyz: Float64Array, a: number, b: number, c: number, out: Float64Array): number {
  const ux = xyz[b * 3] - xyz[a * 3];
  const uy = xyz[b * 3 + 1] - xyz[a * 3 + 1];
  const uz = xyz[b * 3 + 2] - xyz[a * 3 + 2];
  const vx = xyz[c * 3] - xyz[a * 3];
  const vy = xyz[c * 3 + 1] - xyz[a * 3 + 1];
  const vz = xyz[c * 3 + 2] - xyz[a * 3 + 2];
  out[0] = uy * vz - uz * vy;
  out[1] = uz * vx - ux * vz;
  out[2] = ux * vy - uy * vx;
  return out[0] * out[0] + out[1] * out[1] + out[2] * out[2];
}

/** Squared distance between points a and b of xyz. */
function distance2(xyz: Float64Array, a: number, b: number): number {
  const dx = xyz[b * 3] - xyz[a * 3];
  const dy = xyz[b * 3 + 1] - xyz[a * 3 + 1];
  const dz = xyz[b * 3 + 2] - xyz[a * 3 + 2];
  return dx * dx + dy * dy + dz * dz;
}

/** n · (q - o) for the direction n at ns[no..no+2] and points o, q of xyz. */
function heightOf(ns: ArrayLike<number>, no: number, xyz: Float64Array, o: number, q: number): number {
  return ns[no] * (xyz[q * 3] - xyz[o * 3]) + ns[no + 1] * (xyz[q * 3 + 1] - xyz[o * 3 + 1]) + ns[no + 2] * (xyz[q * 3 + 2] - xyz[o * 3 + 2]);
}

/** Newell's normal of the polygon `loop` (points of xyz) into out[0..2], length twice its area; returns the length. */
function newellNormal(xyz: Float64Array, loop: ArrayLike<number>, out: Float64Array): number {
  let nx = 0;
  let ny = 0;
  let nz = 0;
  for (let i = 0; i < loop.length; i++) {
    const p = loop[i] * 3;
    const q = loop[(i + 1) % loop.length] * 3;
    nx += (xyz[p + 1] - xyz[q + 1]) * (xyz[p + 2] + xyz[q + 2]);
    ny += (xyz[p + 2] - xyz[q + 2]) * (xyz[p] + xyz[q]);
    nz += (xyz[p] - xyz[q]) * (xyz[p + 1] + xyz[q + 1]);
  }
  out[0] = nx;
  out[1] = ny;
  out[2] = nz;
  return Math.sqrt(nx * nx + ny * ny + nz * nz);
}

/** The triangle hull while it grows: per triangle its corners, outward unit normal and whether it is live. */
class TriangleHull {
  /** Corners, 3 per triangle (edge e runs from corner e to corner (e + 1) % 3). */
  readonly corner: number[] = [];
  readonly normal: number[] = [];
  /** Squared length of the unnormalised normal (4 × area²). */
  readonly area: number[] = [];
  readonly alive: boolean[] = [];
  /** Triangle owning the directed edge i -> j at i * n + j, or -1. */
  readonly edgeOwner: Int32Array;
  readonly xyz: Float64Array;
  readonly n: number;

  constructor(xyz: Float64Array, n: number) {
    this.xyz = xyz;
    this.n = n;
    this.edgeOwner = new Int32Array(n * n).fill(-1);
  }

  get count(): number {
    return this.alive.length;
  }

  /** Adds triangle (i, j, k), counter-clockwise seen from outside; returns its index. */
  add(i: number, j: number, k: number): number {
    const area = triangleCross(this.xyz, i, j, k, scratch);
    // A sliver of zero area keeps a zero normal: it is never "seen", and merging absorbs it.
    const inv = area > 0 ? 1 / Math.sqrt(area) : 0;
    const t = this.alive.length;
    this.corner.push(i, j, k);
    this.normal.push(scratch[0] * inv, scratch[1] * inv, scratch[2] * inv);
    this.area.push(area);
    this.alive.push(true);
    for (let e = 0; e < 3; e++) this.edgeOwner[this.from(t, e) * this.n + this.to(t, e)] = t;
    return t;
  }

  remove(t: number): void {
    this.alive[t] = false;
    for (let e = 0; e < 3; e++) {
      const key = this.from(t, e) * this.n + this.to(t, e);
      if (this.edgeOwner[key] === t) this.edgeOwner[key] = -1;
    }
  }

  from(t: number, e: number): number {
    return this.corner[t * 3 + e];
  }

  to(t: number, e: number): number {
    return this.corner[t * 3 + (e === 2 ? 0 : e + 1)];
  }

  /** Signed distance of point q above triangle t's plane. */
  distance(t: number, q: number): number {
    return heightOf(this.normal, t * 3, this.xyz, this.corner[t * 3], q);
  }

  /** The triangle across edge e of triangle t. */
  neighbour(t: number, e: number): number {
    return this.edgeOwner[this.to(t, e) * this.n + this.from(t, e)];
  }
}

/**
 * The convex hull of 4..256 points (each [x, y, z]). Points inside the hull or on its faces and edges are
 * not vertices; vertices keep their input order. Throws HullError for clouds without a 3D hull.
 */
export function buildHull(points: readonly (readonly number[])[]): ConvexHull {
  const n = points.length;
  if (n < MIN_HULL_POINTS) {
    throw new HullError(`a convex hull needs at least 4 points that are not all in one plane; got ${n}`);
  }
  if (n > MAX_HULL_POINTS) throw new HullError(`a convex hull takes at most ${MAX_HULL_POINTS} points; got ${n}`);
  const xyz = new Float64Array(n * 3);
  for (let i = 0; i < n; i++) {
    const p = points[i];
    if (!p || p.length !== 3) throw new HullError(`hull point ${i} must have exactly 3 coordinates`);
    for (let k = 0; k < 3; k++) {
      const v = p[k];
      if (typeof v !== "number" || !Number.isFinite(v)) throw new HullError(`hull point ${i} has a non-finite coordinate`);
      xyz[i * 3 + k] = v;
    }
  }
  const lo = [xyz[0], xyz[1], xyz[2]];
  const hi = [xyz[0], xyz[1], xyz[2]];
  let maxAbs = 0;
  for (let i = 0; i < n * 3; i++) {
    const k = i % 3;
    lo[k] = Math.min(lo[k], xyz[i]);
    hi[k] = Math.max(hi[k], xyz[i]);
    maxAbs = Math.max(maxAbs, Math.abs(xyz[i]));
  }
  let axis = 0;
  for (let k = 1; k < 3; k++) if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
  const extent = hi[axis] - lo[axis];
  if (!(extent > COINCIDENT_TOLERANCE * maxAbs)) {
    throw new HullError("a convex hull needs points that are not all at the same place");
  }
  const outsideTol = OUTSIDE_TOLERANCE * extent + ROUNDING_OUTSIDE * maxAbs;
  const planarTol = PLANAR_TOLERANCE * extent + ROUNDING_PLANAR * maxAbs;

  const hull = new TriangleHull(xyz, n);
  const simplex = initialSimplex(xyz, n, axis, planarTol);
  addSimplex(hull, xyz, simplex);
  // Conflict lists: each point remembers the face it is farthest outside of (-1: inside or a vertex).
  const pointFace = new Int32Array(n).fill(-1);
  const pointDist = new Float64Array(n);
  for (let q = 0; q < n; q++) if (!simplex.includes(q)) assignPoint(hull, q, 0, outsideTol, pointFace, pointDist);
  const visibleMark: number[] = [];
  for (let stamp = 1; ; stamp++) {
    let apex = -1;
    for (let q = 0; q < n; q++) if (pointFace[q] >= 0 && (apex < 0 || pointDist[q] > pointDist[apex])) apex = q;
    if (apex < 0) break;
    addPoint(hull, apex, outsideTol, visibleMark, stamp, pointFace, pointDist);
  }
  // Merging at the full tolerance can fold a rim triangle of a very thin cloud into a big face and strand
  // its corner; then merge only what is flat to rounding, then only exactly coplanar triangles.
  for (const tol of [planarTol, outsideTol, 0]) {
    try {
      return polygonHull(hull, tol);
    } catch (e) {
      if (!(e instanceof HullError) || tol === 0) throw e;
    }
  }
  throw new HullError(DEGENERATE);
}

/** Four points spanning the cloud (farthest pair on the widest axis, then off the line, then off the plane). */
function initialSimplex(xyz: Float64Array, n: number, axis: number, planarTol: number): number[] {
  let i0 = 0;
  let i1 = 0;
  for (let q = 1; q < n; q++) {
    if (xyz[q * 3 + axis] < xyz[i0 * 3 + axis]) i0 = q;
    if (xyz[q * 3 + axis] > xyz[i1 * 3 + axis]) i1 = q;
  }
  const lineLen2 = distance2(xyz, i0, i1);
  let i2 = -1;
  let best = 0;
  for (let q = 0; q < n; q++) {
    // |(i1 - i0) × (q - i0)|² / |i1 - i0|²: squared distance from the line.
    const d2 = triangleCross(xyz, i0, i1, q, scratch) / lineLen2;
    if (d2 > best) {
      best = d2;
      i2 = q;
    }
  }
  if (i2 < 0 || Math.sqrt(best) <= planarTol) {
    throw new HullError("a convex hull needs at least 4 points that are not all on one line");
  }
  const len = Math.sqrt(triangleCross(xyz, i0, i1, i2, scratch));
  for (let k = 0; k < 3; k++) scratch[k] /= len;
  let i3 = -1;
  best = 0;
  for (let q = 0; q < n; q++) {
    const d = Math.abs(heightOf(scratch, 0, xyz, i0, q));
    if (d > best) {
      best = d;
      i3 = q;
    }
  }
  if (i3 < 0 || best <= planarTol) {
    throw new HullError("a convex hull needs at least 4 points that are not all in one plane");
  }
  return [i0, i1, i2, i3];
}

/** The simplex's four triangles, each turned so the fourth corner is behind it. */
function addSimplex(hull: TriangleHull, xyz: Float64Array, s: number[]): void {
  for (const [i, j, k, opposite] of [
    [s[0], s[1], s[2], s[3]],
    [s[0], s[3], s[1], s[2]],
    [s[1], s[3], s[2], s[0]],
    [s[2], s[3], s[0], s[1]],
  ]) {
    // Orientation decided before adding, so no directed edge is ever claimed twice.
    triangleCross(xyz, i, j, k, scratch);
    if (heightOf(scratch, 0, xyz, i, opposite) > 0) hull.add(i, k, j);
    else hull.add(i, j, k);
  }
}

/** Point q's farthest face among live triangles from `first` on that it is outside of, or -1. */
function assignPoint(hull: TriangleHull, q: number, first: number, outsideTol: number, pointFace: Int32Array, pointDist: Float64Array): void {
  let face = -1;
  let best = outsideTol;
  for (let t = first; t < hull.count; t++) {
    if (!hull.alive[t]) continue;
    const d = hull.distance(t, q);
    if (d > best) {
      best = d;
      face = t;
    }
  }
  pointFace[q] = face;
  pointDist[q] = face >= 0 ? best : 0;
}

/** Replaces the triangles `apex` sees (grown across edges from its conflict face) with a fan to their horizon. */
function addPoint(
  hull: TriangleHull,
  apex: number,
  outsideTol: number,
  visibleMark: number[],
  stamp: number,
  pointFace: Int32Array,
  pointDist: Float64Array,
): void {
  const visible = [pointFace[apex]];
  visibleMark[visible[0]] = stamp;
  for (let v = 0; v < visible.length; v++) {
    for (let e = 0; e < 3; e++) {
      const u = hull.neighbour(visible[v], e);
      if (u >= 0 && visibleMark[u] !== stamp && hull.distance(u, apex) > outsideTol) {
        visibleMark[u] = stamp;
        visible.push(u);
      }
    }
  }
  const horizon: number[] = [];
  for (const t of visible) {
    for (let e = 0; e < 3; e++) {
      const u = hull.neighbour(t, e);
      if (u < 0 || visibleMark[u] !== stamp) horizon.push(hull.from(t, e), hull.to(t, e));
    }
  }
  for (const t of visible) hull.remove(t);
  const first = hull.count;
  for (let h = 0; h < horizon.length; h += 2) hull.add(horizon[h], horizon[h + 1], apex);
  pointFace[apex] = -1;
  // Quickhull's invariant: a point outside the new hull is outside one of the new faces.
  for (let q = 0; q < pointFace.length; q++) {
    const f = pointFace[q];
    if (f >= 0 && !hull.alive[f]) assignPoint(hull, q, first, outsideTol, pointFace, pointDist);
  }
}

/** Merges coplanar neighbours into polygons, drops non-corner vertices and fills a ConvexHull. */
function polygonHull(hull: TriangleHull, planarTol: number): ConvexHull {
  const { xyz, n, normal, area } = hull;
  const tris: number[] = [];
  for (let t = 0; t < hull.count; t++) if (hull.alive[t]) tris.push(t);
  // Largest triangles seed the groups: their planes are the most accurate. Ties keep creation order.
  const seeds = tris.slice().sort((s, t) => area[t] - area[s] || s - t);
  const group = new Int32Array(hull.count).fill(-1);
  const groupTris: number[][] = [];
  // A neighbour joins when it faces the same way (or is a zero-area sliver) and its corners are within
  // the tolerance of the seed's plane.
  const joins = (seed: number, t: number) => {
    const facing = normal[seed * 3] * normal[t * 3] + normal[seed * 3 + 1] * normal[t * 3 + 1] + normal[seed * 3 + 2] * normal[t * 3 + 2];
    if (facing <= 0 && area[t] > 0) return false;
    for (let e = 0; e < 3; e++) if (Math.abs(heightOf(normal, seed * 3, xyz, hull.from(seed, 0), hull.from(t, e))) > planarTol) return false;
    return true;
  };
  for (const seed of seeds) {
    if (group[seed] >= 0) continue;
    const members = [seed];
    group[seed] = groupTris.length;
    for (let m = 0; m < members.length; m++) {
      for (let e = 0; e < 3; e++) {
        const u = hull.neighbour(members[m], e);
        if (u >= 0 && group[u] < 0 && joins(seed, u)) {
          group[u] = groupTris.length;
          members.push(u);
        }
      }
    }
    groupTris.push(members);
  }
  // Each group's boundary must be one simple, convex, flat loop; a group that is not (a ring, or a
  // jagged or tilted patch of a gently curved surface) falls back to its triangles.
  const next = new Int32Array(n).fill(-1);
  const corners: number[] = [];
  for (let q = 0; q < n; q++) if (hull.edgeOwner.subarray(q * n, q * n + n).some((t) => t >= 0)) corners.push(q);
  const split = new Uint8Array(groupTris.length);
  let loops: number[][] = [];
  let loopGroup: number[] = [];
  const faceCount = new Int32Array(n);
  for (;;) {
    loops = [];
    loopGroup = [];
    for (let g = 0; g < groupTris.length; g++) {
      const loop = split[g] ? null : boundaryLoop(hull, groupTris[g], group, g, next);
      if (loop && isConvexLoop(xyz, loop, normal, groupTris[g][0] * 3, planarTol) && isFlatFace(xyz, loop, corners, planarTol)) {
        loops.push(loop);
        loopGroup.push(g);
        continue;
      }
      split[g] = 1;
      for (const t of groupTris[g]) {
        loops.push(hull.corner.slice(t * 3, t * 3 + 3));
        loopGroup.push(g);
      }
    }
    // A corner of a convex polyhedron joins at least 3 faces; a point inside a face joins one and a
    // point on a straight edge two, and both are dropped. A point joining two faces that is not on a
    // straight line marks two nearly coplanar patches meeting along a bent seam: both become triangles.
    faceCount.fill(0);
    for (const loop of loops) for (const q of loop) faceCount[q]++;
    const bent: number[] = [];
    for (const loop of loops) {
      for (let i = 0; i < loop.length; i++) {
        const q = loop[i];
        if (faceCount[q] === 2 && !isOnChord(xyz, loop[(i + loop.length - 1) % loop.length], q, loop[(i + 1) % loop.length], planarTol)) {
          bent.push(q);
        }
      }
    }
    let changed = false;
    for (let l = 0; l < loops.length; l++) {
      if (split[loopGroup[l]] === 0 && loops[l].some((q) => bent.includes(q))) {
        split[loopGroup[l]] = 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  const newIndex = new Int32Array(n).fill(-1);
  const out = new ConvexHull();
  for (let q = 0; q < n; q++) if (faceCount[q] >= 3) newIndex[q] = out.vertexCount++;
  out.vertices = new Float64Array(out.vertexCount * 3);
  for (let q = 0; q < n; q++) if (newIndex[q] >= 0) out.vertices.set(xyz.subarray(q * 3, q * 3 + 3), newIndex[q] * 3);
  const faces = loops.map((loop) => loop.filter((q) => faceCount[q] >= 3).map((q) => newIndex[q]));
  fillTopology(out, faces);
  return out;
}

/** Whether point q lies within `tol` of the line through points a and b. */
function isOnChord(xyz: Float64Array, a: number, q: number, b: number, tol: number): boolean {
  return triangleCross(xyz, a, b, q, scratch) <= tol * tol * distance2(xyz, a, b);
}

/**
 * Whether the loop turns left (seen from outside along the normal at ns[no..no+2]) at every corner, a
 * corner counting as straight when it lies within `tol` of the chord between its neighbours.
 */
function isConvexLoop(xyz: Float64Array, loop: number[], ns: number[], no: number, tol: number): boolean {
  for (let i = 0; i < loop.length; i++) {
    const a = loop[i];
    const c = loop[(i + 2) % loop.length];
    // n · ((b - a) × (c - a)) / |c - a|: how far b stands outwards of the chord a-c.
    triangleCross(xyz, a, loop[(i + 1) % loop.length], c, scratch);
    const turn = ns[no] * scratch[0] + ns[no + 1] * scratch[1] + ns[no + 2] * scratch[2];
    if (turn < -tol * Math.sqrt(distance2(xyz, a, c))) return false;
  }
  return true;
}

/**
 * Whether the polygon's own plane (Newell normal, pushed out to the farthest hull corner) passes within
 * `tol` of each of its vertices. A patch of a gently curved surface can be flat to `tol` against its
 * seed triangle yet tilt enough that a distant corner would lift the plane off the face.
 */
function isFlatFace(xyz: Float64Array, loop: number[], corners: number[], tol: number): boolean {
  const len = newellNormal(xyz, loop, scratch);
  if (!(len > 0)) return false;
  let highest = 0;
  for (const q of corners) highest = Math.max(highest, heightOf(scratch, 0, xyz, loop[0], q));
  for (const q of loop) if (highest - heightOf(scratch, 0, xyz, loop[0], q) > tol * len) return false;
  return true;
}

/** Group g's boundary as a vertex loop (counter-clockwise from outside), or null when it is not one simple loop. */
function boundaryLoop(hull: TriangleHull, members: number[], group: Int32Array, g: number, next: Int32Array): number[] | null {
  let start = -1;
  let edges = 0;
  let simple = true;
  const touched: number[] = [];
  for (const t of members) {
    for (let e = 0; e < 3; e++) {
      const u = hull.neighbour(t, e);
      if (u >= 0 && group[u] === g) continue;
      const from = hull.from(t, e);
      if (next[from] >= 0) simple = false;
      next[from] = hull.to(t, e);
      touched.push(from);
      if (start < 0) start = from;
      edges++;
    }
  }
  let loop: number[] | null = null;
  if (simple && start >= 0) {
    loop = [];
    let q = start;
    do {
      loop.push(q);
      q = next[q];
    } while (q >= 0 && q !== start && loop.length <= edges);
    if (q !== start || loop.length !== edges) loop = null;
  }
  for (const q of touched) next[q] = -1;
  return loop;
}

/**
 * Fills faceStart/faceVertices, planes (Newell normal of each polygon, offset of the farthest vertex so
 * every vertex is inside every plane), the unique edges with their two faces, and boundRadius, checking
 * that the faces close a sphere-like surface (every edge shared by exactly two faces, V - E + F = 2).
 */
function fillTopology(out: ConvexHull, faces: number[][]): void {
  const vCount = out.vertexCount;
  const fCount = faces.length;
  out.faceCount = fCount;
  out.faceStart = new Int32Array(fCount + 1);
  for (let f = 0; f < fCount; f++) out.faceStart[f + 1] = out.faceStart[f] + faces[f].length;
  out.faceVertices = new Int32Array(out.faceStart[fCount]);
  const owner = new Int32Array(vCount * vCount).fill(-1);
  for (let f = 0; f < fCount; f++) {
    const face = faces[f];
    if (face.length < 3) throw new HullError(DEGENERATE);
    out.faceVertices.set(face, out.faceStart[f]);
    for (let i = 0; i < face.length; i++) {
      const key = face[i] * vCount + face[(i + 1) % face.length];
      if (owner[key] >= 0) throw new HullError(DEGENERATE);
      owner[key] = f;
    }
  }
  const edges: number[] = [];
  const edgeFaces: number[] = [];
  for (let f = 0; f < fCount; f++) {
    const face = faces[f];
    for (let i = 0; i < face.length; i++) {
      const a = face[i];
      const b = face[(i + 1) % face.length];
      const twin = owner[b * vCount + a];
      if (twin < 0 || twin === f) throw new HullError(DEGENERATE);
      if (a < b) {
        edges.push(a, b);
        edgeFaces.push(f, twin);
      }
    }
  }
  out.edgeCount = edges.length / 2;
  if (vCount - out.edgeCount + fCount !== 2) throw new HullError(DEGENERATE);
  out.edges = Int32Array.from(edges);
  out.edgeFaces = Int32Array.from(edgeFaces);
  out.planes = new Float64Array(fCount * 4);
  for (let f = 0; f < fCount; f++) {
    const len = newellNormal(out.vertices, faces[f], scratch);
    if (!(len > 0)) throw new HullError(DEGENERATE);
    for (let k = 0; k < 3; k++) out.planes[f * 4 + k] = scratch[k] / len;
  }
  finishPlanesAndBound(out);
}

/**
 * Each plane's d as the largest n · v over all vertices, so the whole hull is on the inner side, and
 * boundRadius as the farthest vertex from the origin.
 */
function finishPlanesAndBound(h: ConvexHull): void {
  const v = h.vertices;
  for (let f = 0; f < h.faceCount; f++) {
    let d = -Infinity;
    for (let i = 0; i < h.vertexCount; i++) d = Math.max(d, h.planes[f * 4] * v[i * 3] + h.planes[f * 4 + 1] * v[i * 3 + 1] + h.planes[f * 4 + 2] * v[i * 3 + 2]);
    h.planes[f * 4 + 3] = d;
  }
  let r2 = 0;
  for (let i = 0; i < h.vertexCount; i++) r2 = Math.max(r2, v[i * 3] * v[i * 3] + v[i * 3 + 1] * v[i * 3 + 1] + v[i * 3 + 2] * v[i * 3 + 2]);
  h.boundRadius = Math.sqrt(r2);
}

/**
 * A copy of `hull` moved by the rigid transform x -> R(rotation) x + position (rotation a unit
 * quaternion [x, y, z, w]): vertices and normals turned, offsets and boundRadius recomputed about the new
 * origin. All arrays are copied, so the result shares nothing with the input.
 */
export function transformHull(hull: ConvexHull, position: Float64Array, rotation: Float64Array): ConvexHull {
  const m = new Float64Array(9);
  matrixFromQuat(m, 0, rotation, 0);
  const out = new ConvexHull();
  out.vertexCount = hull.vertexCount;
  out.vertices = new Float64Array(hull.vertexCount * 3);
  for (let i = 0; i < hull.vertexCount; i++) {
    const [x, y, z] = hull.vertices.subarray(i * 3, i * 3 + 3);
    for (let k = 0; k < 3; k++) out.vertices[i * 3 + k] = m[k * 3] * x + m[k * 3 + 1] * y + m[k * 3 + 2] * z + position[k];
  }
  out.faceCount = hull.faceCount;
  out.planes = new Float64Array(hull.faceCount * 4);
  for (let f = 0; f < hull.faceCount; f++) {
    const [x, y, z] = hull.planes.subarray(f * 4, f * 4 + 3);
    for (let k = 0; k < 3; k++) out.planes[f * 4 + k] = m[k * 3] * x + m[k * 3 + 1] * y + m[k * 3 + 2] * z;
  }
  out.faceStart = hull.faceStart.slice();
  out.faceVertices = hull.faceVertices.slice();
  out.edgeCount = hull.edgeCount;
  out.edges = hull.edges.slice();
  out.edgeFaces = hull.edgeFaces.slice();
  finishPlanesAndBound(out);
  return out;
}
