import { HeightField } from "./heightfield.ts";
import type { TriangleSource } from "./triangle-source.ts";
import { TriMesh } from "./trimesh.ts";

/** Where `raycastTriangles` reports the closest hit. */
export interface TriangleRayHit {
  /** Distance along the unit direction. */
  t: number;
  /** Unit normal of the hit triangle, local, facing against the ray. */
  normal: Float64Array;
  triangle: number;
}

/** The triangle under test, v0 v1 v2. */
const corners = new Float64Array(9);
/** Best hit so far: t, triangle id (-1: none). */
const best = new Float64Array(2);
/** Last `intersectCorners` result: t. */
const hitT = new Float64Array(1);
/** Last `clipToBox` result: entry and exit t. */
const span = new Float64Array(2);
/** Box of a ray segment and the ids it overlaps, for sources without a dedicated walk. */
const segmentLo = new Float64Array(3);
const segmentHi = new Float64Array(3);
const segmentIds = new Int32Array(256);

/** Below this |det| (relative to the edges' squared lengths) the ray is taken as parallel to the plane. */
const PARALLEL_TOLERANCE = 1e-12;

/**
 * The closest triangle of `src` hit by the ray origin + t · dir, 0 <= t <= maxDistance (local frame,
 * `dir` unit). Triangles are two-sided. Equal distances go to the lower triangle id, so the answer does
 * not depend on the walk order. Returns false (leaving `out` untouched) on a miss.
 *
 * A mesh walks its bounding-volume hierarchy, pruning nodes beyond the best hit; a height field walks
 * the cells under the ray in order (Amanatides & Woo, "A fast voxel traversal algorithm", 1987) and stops
 * at the first cell that holds a hit; any other source is queried segment by segment along the ray.
 */
export function raycastTriangles(
  src: TriangleSource,
  origin: Float64Array,
  dir: Float64Array,
  maxDistance: number,
  out: TriangleRayHit,
): boolean {
  best[0] = maxDistance;
  best[1] = -1;
  span[0] = 0;
  span[1] = maxDistance;
  if (!clipToBox(src.bounds, 0, origin, dir)) return false;
  if (src instanceof TriMesh) walkMesh(src, origin, dir);
  else if (src instanceof HeightField) walkHeightField(src, origin, dir);
  else walkSegments(src, origin, dir);
  const id = best[1];
  if (id < 0) return false;
  src.triangle(id, corners, 0);
  const e1x = corners[3] - corners[0];
  const e1y = corners[4] - corners[1];
  const e1z = corners[5] - corners[2];
  const e2x = corners[6] - corners[0];
  const e2y = corners[7] - corners[1];
  const e2z = corners[8] - corners[2];
  let nx = e1y * e2z - e1z * e2y;
  let ny = e1z * e2x - e1x * e2z;
  let nz = e1x * e2y - e1y * e2x;
  let scale = 1 / Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (nx * dir[0] + ny * dir[1] + nz * dir[2] > 0) scale = -scale;
  nx *= scale;
  ny *= scale;
  nz *= scale;
  out.t = best[0];
  out.normal[0] = nx;
  out.normal[1] = ny;
  out.normal[2] = nz;
  out.triangle = id;
  return true;
}

/**
 * Möller & Trumbore, "Fast, minimum storage ray/triangle intersection" (1997), without back-face culling:
 * the ray against `corners`, hits with 0 <= t <= best[0]; t into hitT[0]. (The limit is read here rather
 * than passed: a double argument to a call V8 does not inline is boxed.)
 */
function intersectCorners(origin: Float64Array, dir: Float64Array): boolean {
  const e1x = corners[3] - corners[0];
  const e1y = corners[4] - corners[1];
  const e1z = corners[5] - corners[2];
  const e2x = corners[6] - corners[0];
  const e2y = corners[7] - corners[1];
  const e2z = corners[8] - corners[2];
  const px = dir[1] * e2z - dir[2] * e2y;
  const py = dir[2] * e2x - dir[0] * e2z;
  const pz = dir[0] * e2y - dir[1] * e2x;
  const det = e1x * px + e1y * py + e1z * pz;
  const scale = e1x * e1x + e1y * e1y + e1z * e1z + e2x * e2x + e2y * e2y + e2z * e2z;
  if (Math.abs(det) <= PARALLEL_TOLERANCE * scale) return false;
  const inv = 1 / det;
  const sx = origin[0] - corners[0];
  const sy = origin[1] - corners[1];
  const sz = origin[2] - corners[2];
  const u = (sx * px + sy * py + sz * pz) * inv;
  if (u < 0 || u > 1) return false;
  const qx = sy * e1z - sz * e1y;
  const qy = sz * e1x - sx * e1z;
  const qz = sx * e1y - sy * e1x;
  const v = (dir[0] * qx + dir[1] * qy + dir[2] * qz) * inv;
  if (v < 0 || u + v > 1) return false;
  const t = (e2x * qx + e2y * qy + e2z * qz) * inv;
  if (t < 0 || t > best[0]) return false;
  hitT[0] = t;
  return true;
}

/** Tests triangle `id` and keeps it if it is the closest so far. */
function consider(src: TriangleSource, id: number, origin: Float64Array, dir: Float64Array): void {
  src.triangle(id, corners, 0);
  if (!intersectCorners(origin, dir)) return;
  const t = hitT[0];
  if (t < best[0] || best[1] < 0 || id < best[1]) {
    best[0] = t;
    best[1] = id;
  }
}

/**
 * Slab test of the ray against box b[o .. o + 5] (min xyz, max xyz), narrowing span[0] .. span[1]
 * (touching counts). Ericson, Real-Time Collision Detection 5.3.3.
 */
function clipToBox(b: Float64Array, o: number, origin: Float64Array, dir: Float64Array): boolean {
  let t0 = span[0];
  let t1 = span[1];
  for (let axis = 0; axis < 3; axis++) {
    const d = dir[axis];
    const p = origin[axis];
    const lo = b[o + axis];
    const hi = b[o + 3 + axis];
    if (d === 0) {
      if (p < lo || p > hi) return false;
      continue;
    }
    const inv = 1 / d;
    let near = (lo - p) * inv;
    let far = (hi - p) * inv;
    if (near > far) {
      const swap = near;
      near = far;
      far = swap;
    }
    if (near > t0) t0 = near;
    if (far < t1) t1 = far;
    if (t0 > t1) return false;
  }
  span[0] = t0;
  span[1] = t1;
  return true;
}

function walkMesh(mesh: TriMesh, origin: Float64Array, dir: Float64Array): void {
  if (mesh.nodeCount === 0) return;
  const stack = mesh.stack;
  let top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const node = stack[--top];
    span[0] = 0;
    span[1] = best[0];
    if (!clipToBox(mesh.nodeBounds, node * 6, origin, dir)) continue;
    const second = mesh.nodeSecondChild[node];
    if (second >= 0) {
      stack[top++] = second;
      stack[top++] = node + 1;
      continue;
    }
    const end = mesh.nodeFirst[node] + mesh.nodeTriangles[node];
    for (let i = mesh.nodeFirst[node]; i < end; i++) consider(mesh, mesh.leafTriangles[i], origin, dir);
  }
}

/**
 * Called with span = the part of the ray inside the field's bounds. Corner coordinates use the field's
 * own expression (-0.5 · size + index · cell), written out here: a call returning a double allocates when
 * V8 does not inline it.
 */
function walkHeightField(field: HeightField, origin: Float64Array, dir: Float64Array): void {
  const tEnd = span[1];
  const px = origin[0] + dir[0] * span[0];
  const pz = origin[2] + dir[2] * span[0];
  const x0 = -0.5 * field.sizeX;
  const z0 = -0.5 * field.sizeZ;
  const cellX = field.cellX;
  const cellZ = field.cellZ;
  const lastColumn = field.cols - 2;
  const lastRow = field.rows - 2;
  let c = Math.floor((px - x0) / cellX);
  c = c < 0 ? 0 : c > lastColumn ? lastColumn : c;
  // The lowest cell touching the start point: on a shared border, the lowest ids win ties.
  while (c > 0 && x0 + c * cellX >= px) c--;
  while (c < lastColumn && x0 + (c + 1) * cellX < px) c++;
  let r = Math.floor((pz - z0) / cellZ);
  r = r < 0 ? 0 : r > lastRow ? lastRow : r;
  while (r > 0 && z0 + r * cellZ >= pz) r--;
  while (r < lastRow && z0 + (r + 1) * cellZ < pz) r++;
  const stepX = dir[0] > 0 ? 1 : dir[0] < 0 ? -1 : 0;
  const stepZ = dir[2] > 0 ? 1 : dir[2] < 0 ? -1 : 0;
  // Index of the boundary each axis leaves the cell through.
  const aheadX = stepX > 0 ? 1 : 0;
  const aheadZ = stepZ > 0 ? 1 : 0;
  // A straight line crosses each column and row boundary at most once.
  for (let visits = lastColumn + lastRow + 2; visits > 0; visits--) {
    const id = 2 * (r * (lastColumn + 1) + c);
    consider(field, id, origin, dir);
    consider(field, id + 1, origin, dir);
    // Distances to this cell's exit boundaries, from the exact corner coordinates (no accumulated steps).
    const exitX = stepX === 0 ? Infinity : (x0 + (c + aheadX) * cellX - origin[0]) / dir[0];
    const exitZ = stepZ === 0 ? Infinity : (z0 + (r + aheadZ) * cellZ - origin[2]) / dir[2];
    const exit = exitX < exitZ ? exitX : exitZ;
    // Later cells lie beyond `exit`; a hit exactly on it may still tie with a lower id further on.
    if (best[1] >= 0 && best[0] < exit) return;
    if (exit > tEnd) return;
    if (exitX === exitZ) {
      // Through a corner: the two cells beside the diagonal step touch the ray only there, but a hit on
      // the corner ties with them.
      const side = c + stepX;
      if (side >= 0 && side <= lastColumn) {
        consider(field, 2 * (r * (lastColumn + 1) + side), origin, dir);
        consider(field, 2 * (r * (lastColumn + 1) + side) + 1, origin, dir);
      }
      const below = r + stepZ;
      if (below >= 0 && below <= lastRow) {
        consider(field, 2 * (below * (lastColumn + 1) + c), origin, dir);
        consider(field, 2 * (below * (lastColumn + 1) + c) + 1, origin, dir);
      }
    }
    if (exitX <= exitZ) c += stepX;
    if (exitZ <= exitX) r += stepZ;
    if (c < 0 || c > lastColumn || r < 0 || r > lastRow) return;
  }
}

/** Generic sources: query the boxes of successive ray segments, halving a segment that overflows the ids. */
function walkSegments(src: TriangleSource, origin: Float64Array, dir: Float64Array): void {
  const tEnd = span[1];
  let t0 = span[0];
  let length = tEnd - t0;
  const minLength = length * 1e-6;
  while (t0 < tEnd) {
    const t1 = t0 + length < tEnd ? t0 + length : tEnd;
    for (let axis = 0; axis < 3; axis++) {
      const a = origin[axis] + dir[axis] * t0;
      const b = origin[axis] + dir[axis] * t1;
      segmentLo[axis] = a < b ? a : b;
      segmentHi[axis] = a < b ? b : a;
    }
    const count = src.queryTriangles(segmentLo, segmentHi, segmentIds);
    if (count === segmentIds.length && length > minLength) {
      length *= 0.5;
      continue;
    }
    for (let i = 0; i < count; i++) consider(src, segmentIds[i], origin, dir);
    // Any hit at t <= t1 lies in this segment's box, so it has been seen.
    if (best[1] >= 0 && best[0] <= t1) return;
    t0 = t1;
    length *= 2;
  }
}
