import { buildHull, HullError, MAX_HULL_POINTS } from "../engine/geometry/hull-builder.ts";
import {
  boxMassProperties,
  capsuleMassProperties,
  cylinderMassProperties,
  hullMassProperties,
  sphereMassProperties,
} from "../engine/geometry/mass-properties.ts";
import type {
  BodyType,
  CompoundChildDef,
  HeightfieldShapeDef,
  HullShapeDef,
  MeshShapeDef,
  QuatTuple,
  ShapeDef,
  Vec3Tuple,
} from "../engine/types.ts";
import { checkKeys, fmt, indexPath, type IssueList, isObject, keyPath, type NumberRule, own, readNumber, readVector } from "./json-read.ts";
import type { ScenarioLimits } from "./validate.ts";

/**
 * The scenario format's shapes: reading an untrusted `shape` object into a clean copy, with a JSON path for
 * every problem, and the volume the mass checks derive a dynamic body's mass from.
 */

/** Counts that keep one shape's creation-time work (hull building, mesh and height field setup) bounded. */
export const SHAPE_LIMITS = Object.freeze({
  /** At most this many hull points (at least 4, not all in one plane: the hull builder's rule and message). */
  maxHullPoints: MAX_HULL_POINTS,
  minCompoundChildren: 1,
  maxCompoundChildren: 64,
  maxMeshVertices: 65536,
  maxMeshTriangles: 131072,
  minHeightfieldSamples: 2,
  maxHeightfieldSamples: 1024,
});

const CONVEX_TYPES = ["sphere", "box", "capsule", "cylinder", "hull"] as const;
const SHAPE_TYPES = [...CONVEX_TYPES, "compound", "mesh", "heightfield"] as const;
const SHAPE_KEYS: Readonly<Record<(typeof SHAPE_TYPES)[number], readonly string[]>> = {
  sphere: ["type", "radius"],
  box: ["type", "halfExtents"],
  capsule: ["type", "radius", "halfHeight"],
  cylinder: ["type", "radius", "halfHeight"],
  hull: ["type", "points"],
  compound: ["type", "children"],
  mesh: ["type", "vertices", "indices"],
  heightfield: ["type", "heights", "rows", "cols", "size"],
};
const CHILD_KEYS = ["shape", "position", "rotation"] as const;

/** Quaternions shorter than this cannot be normalised meaningfully. */
const MIN_QUAT_LENGTH_SQ = 1e-12;
/**
 * A quaternion whose squared length is this close to 1 is already unit up to rounding and is kept bit for
 * bit: re-dividing a normalised quaternion by its length moves last bits about a third of the time, which
 * would make validation non-idempotent and change literal rotations such as the friction ramp's.
 */
const UNIT_LENGTH_SQ_TOLERANCE = 1e-12;

/**
 * Unit quaternion from any finite non-zero one (a body's rotation, a compound child's): each component
 * divided by the square root of the sum of squares. Components so large that the sum overflows are first
 * scaled down by the largest magnitude.
 */
export function normaliseQuat(q: number[], path: string, issues: IssueList): QuatTuple | undefined {
  let [x, y, z, w] = q;
  let lengthSq = x * x + y * y + z * z + w * w;
  if (Math.abs(lengthSq - 1) <= UNIT_LENGTH_SQ_TOLERANCE) return [x, y, z, w];
  if (lengthSq === Number.POSITIVE_INFINITY) {
    const scale = Math.max(Math.abs(x), Math.abs(y), Math.abs(z), Math.abs(w));
    x /= scale;
    y /= scale;
    z /= scale;
    w /= scale;
    lengthSq = x * x + y * y + z * z + w * w;
  }
  if (!(lengthSq >= MIN_QUAT_LENGTH_SQ)) {
    issues.add(path, "must not be a zero quaternion");
    return undefined;
  }
  const length = Math.sqrt(lengthSq);
  return [x / length, y / length, z / length, w / length];
}

/** Volume of each validated hull, for the mass checks (the hull is built once, while validating). */
const hullVolumes = new WeakMap<HullShapeDef, number>();

/** `key` of `v`, or undefined after an `is required` issue. */
function required(v: Record<string, unknown>, key: string, path: string, issues: IssueList): unknown {
  const value = own(v, key);
  if (value === undefined) issues.add(keyPath(path, key), "is required");
  return value;
}

/** Singular of the plural nouns readList's messages use. */
const ONE: Readonly<Record<string, string>> = { points: "point", children: "child", vertices: "vertex", triangles: "triangle" };

/** An array of `min..max` entries, or undefined after an issue; entries are not read. */
function readList(v: unknown, path: string, issues: IssueList, min: number, max: number, what: string): unknown[] | undefined {
  if (!Array.isArray(v)) {
    issues.add(path, `expected array of ${what}`);
    return undefined;
  }
  if (v.length < min) issues.add(path, `needs at least ${min} ${min === 1 ? ONE[what] : what}, got ${v.length}`);
  else if (v.length > max) issues.add(path, `at most ${max} ${what}, got ${v.length}`);
  else return v;
  return undefined;
}

/** Every entry of `list` as a 3-vector within `rule`; undefined when any is not. */
function readVectors(list: unknown[], path: string, issues: IssueList, rule: NumberRule): Vec3Tuple[] | undefined {
  const out: Vec3Tuple[] = [];
  let ok = true;
  for (let i = 0; i < list.length; i++) {
    const p = readVector(list[i], 3, indexPath(path, i), issues, rule);
    if (p === undefined) ok = false;
    else out.push(p as Vec3Tuple);
  }
  return ok ? out : undefined;
}

/** `radius` and `halfHeight` of a capsule or cylinder. */
function readRound(v: Record<string, unknown>, path: string, issues: IssueList, rule: NumberRule): [number, number] | undefined {
  const out: number[] = [];
  for (const key of ["radius", "halfHeight"]) {
    const raw = required(v, key, path, issues);
    const n = raw === undefined ? undefined : readNumber(raw, keyPath(path, key), issues, rule);
    if (n !== undefined) out.push(n);
  }
  return out.length === 2 ? [out[0], out[1]] : undefined;
}

/**
 * Hull points: each within ±maxExtent of the body's origin, then the hull itself, built as the engine
 * builds it, so a degenerate set (fewer than 4 points, all on one line or in one plane) is refused with
 * the builder's reason at `.points`.
 */
function readHull(v: Record<string, unknown>, path: string, issues: IssueList, limits: ScenarioLimits): HullShapeDef | undefined {
  const pointsPath = keyPath(path, "points");
  const raw = required(v, "points", path, issues);
  if (raw === undefined) return undefined;
  const list = readList(raw, pointsPath, issues, 0, SHAPE_LIMITS.maxHullPoints, "points");
  if (list === undefined) return undefined;
  const points = readVectors(list, pointsPath, issues, { ge: -limits.maxExtent, le: limits.maxExtent });
  if (points === undefined) return undefined;
  let volume: number;
  try {
    volume = hullMassProperties(buildHull(points)).volume;
  } catch (err) {
    if (!(err instanceof HullError)) throw err;
    issues.add(pointsPath, err.message);
    return undefined;
  }
  // The builder accepts a sliver as small as you like (its tolerance is relative to the cloud's size);
  // one thinner than a minExtent cube would give a dynamic body an infinite inverse inertia.
  const minVolume = limits.minExtent * limits.minExtent * limits.minExtent;
  if (!(volume >= minVolume)) {
    const cube = (n: number) => fmt(Number(n.toPrecision(4)));
    issues.add(pointsPath, `must enclose at least ${cube(minVolume)} m³ (a ${limits.minExtent} m cube), got ${cube(volume)} m³`);
    return undefined;
  }
  const shape: HullShapeDef = { type: "hull", points };
  hullVolumes.set(shape, volume);
  return shape;
}

/** One compound child: a convex shape, and optionally its position (±maxExtent) and rotation in the body frame. */
function readChild(v: unknown, path: string, issues: IssueList, limits: ScenarioLimits): CompoundChildDef | undefined {
  if (!isObject(v)) {
    issues.add(path, "expected object {shape, position?, rotation?}");
    return undefined;
  }
  checkKeys(v, CHILD_KEYS, path, issues);
  const before = issues.total;
  const rawShape = required(v, "shape", path, issues);
  const shape = rawShape === undefined ? undefined : readShape(rawShape, keyPath(path, "shape"), issues, limits, true);
  const child = { shape } as CompoundChildDef;
  const rawPosition = own(v, "position");
  if (rawPosition !== undefined) {
    const rule: NumberRule = { ge: -limits.maxExtent, le: limits.maxExtent };
    child.position = readVector(rawPosition, 3, keyPath(path, "position"), issues, rule) as Vec3Tuple;
  }
  const rawRotation = own(v, "rotation");
  if (rawRotation !== undefined) {
    const rotationPath = keyPath(path, "rotation");
    const q = readVector(rawRotation, 4, rotationPath, issues);
    if (q !== undefined) child.rotation = normaliseQuat(q, rotationPath, issues);
  }
  return issues.total === before ? child : undefined;
}

function readCompound(v: Record<string, unknown>, path: string, issues: IssueList, limits: ScenarioLimits): ShapeDef | undefined {
  const childrenPath = keyPath(path, "children");
  const raw = required(v, "children", path, issues);
  if (raw === undefined) return undefined;
  const { minCompoundChildren: min, maxCompoundChildren: max } = SHAPE_LIMITS;
  const list = readList(raw, childrenPath, issues, min, max, "children");
  if (list === undefined) return undefined;
  const children: CompoundChildDef[] = [];
  for (let i = 0; i < list.length; i++) {
    const child = readChild(list[i], indexPath(childrenPath, i), issues, limits);
    if (child !== undefined) children.push(child);
  }
  return children.length === list.length ? { type: "compound", children } : undefined;
}

/**
 * A triangle mesh: vertices within ±maxCoordinate, indices triples of distinct vertex indices in range,
 * each triangle with a non-zero area (a degenerate triangle has no normal to push along).
 */
function readMesh(v: Record<string, unknown>, path: string, issues: IssueList, limits: ScenarioLimits): MeshShapeDef | undefined {
  const verticesPath = keyPath(path, "vertices");
  const indicesPath = keyPath(path, "indices");
  const rawVertices = required(v, "vertices", path, issues);
  const rawIndices = required(v, "indices", path, issues);
  const vertexList = rawVertices === undefined ? undefined : readList(rawVertices, verticesPath, issues, 3, SHAPE_LIMITS.maxMeshVertices, "vertices");
  const coordinateRule: NumberRule = { ge: -limits.maxCoordinate, le: limits.maxCoordinate };
  const vertices = vertexList === undefined ? undefined : readVectors(vertexList, verticesPath, issues, coordinateRule);
  const triangleList = rawIndices === undefined ? undefined : readList(rawIndices, indicesPath, issues, 1, SHAPE_LIMITS.maxMeshTriangles, "triangles");
  if (triangleList === undefined) return undefined;
  // Without valid vertices the range of an index is unknown: indices are then checked for shape only.
  const count = vertices?.length ?? Number.POSITIVE_INFINITY;
  const indices: [number, number, number][] = [];
  for (let k = 0; k < triangleList.length; k++) {
    const trianglePath = indexPath(indicesPath, k);
    const t = readVector(triangleList[k], 3, trianglePath, issues, { integer: true, ge: 0 });
    if (t === undefined) continue;
    let inRange = true;
    for (let j = 0; j < 3; j++) {
      if (t[j] < count) continue;
      issues.add(indexPath(trianglePath, j), `must be < ${count}, the number of vertices`);
      inRange = false;
    }
    if (!inRange) continue;
    if (t[0] === t[1] || t[1] === t[2] || t[2] === t[0]) issues.add(trianglePath, "must name three different vertices");
    else if (vertices !== undefined && !hasArea(vertices[t[0]], vertices[t[1]], vertices[t[2]])) {
      issues.add(trianglePath, "is degenerate: its corners lie on one line");
    } else indices.push([t[0], t[1], t[2]]);
  }
  if (vertices === undefined || indices.length !== triangleList.length) return undefined;
  return { type: "mesh", vertices, indices };
}

function hasArea(a: Vec3Tuple, b: Vec3Tuple, c: Vec3Tuple): boolean {
  const ux = b[0] - a[0];
  const uy = b[1] - a[1];
  const uz = b[2] - a[2];
  const vx = c[0] - a[0];
  const vy = c[1] - a[1];
  const vz = c[2] - a[2];
  return uy * vz - uz * vy !== 0 || uz * vx - ux * vz !== 0 || ux * vy - uy * vx !== 0;
}

/** A height field: rows x cols samples (each 2..1024), heights within ±maxCoordinate, size two lengths. */
function readHeightfield(v: Record<string, unknown>, path: string, issues: IssueList, limits: ScenarioLimits): HeightfieldShapeDef | undefined {
  const before = issues.total;
  const { minHeightfieldSamples: min, maxHeightfieldSamples: max } = SHAPE_LIMITS;
  const countRule: NumberRule = { integer: true, ge: min, le: max };
  const rawRows = required(v, "rows", path, issues);
  const rows = rawRows === undefined ? undefined : readNumber(rawRows, keyPath(path, "rows"), issues, countRule);
  const rawCols = required(v, "cols", path, issues);
  const cols = rawCols === undefined ? undefined : readNumber(rawCols, keyPath(path, "cols"), issues, countRule);
  const heightsPath = keyPath(path, "heights");
  const rawHeights = required(v, "heights", path, issues);
  let heights: number[] | undefined;
  if (rawHeights !== undefined && !Array.isArray(rawHeights)) issues.add(heightsPath, "expected array of numbers");
  else if (rawHeights !== undefined && rows !== undefined && cols !== undefined) {
    if (rawHeights.length !== rows * cols) {
      issues.add(heightsPath, `must hold rows × cols = ${rows * cols} heights, got ${rawHeights.length}`);
    } else {
      const rule: NumberRule = { ge: -limits.maxCoordinate, le: limits.maxCoordinate };
      // An index loop, not map: map skips the holes of a sparse array (possible from the API, not JSON).
      heights = [];
      for (let i = 0; i < rawHeights.length; i++) heights.push(readNumber(rawHeights[i], indexPath(heightsPath, i), issues, rule) as number);
    }
  }
  const sizePath = keyPath(path, "size");
  const rawSize = required(v, "size", path, issues);
  const size: number[] = [];
  if (rawSize !== undefined && !Array.isArray(rawSize)) issues.add(sizePath, "expected array of 2 numbers");
  else if (rawSize !== undefined && rawSize.length !== 2) issues.add(sizePath, `must have exactly 2 elements, got ${rawSize.length}`);
  else if (rawSize !== undefined) {
    const rule: NumberRule = { gt: 0, ge: limits.minExtent, le: limits.maxCoordinate };
    for (let i = 0; i < 2; i++) size.push(readNumber(rawSize[i], indexPath(sizePath, i), issues, rule) as number);
  }
  if (issues.total !== before) return undefined;
  return { type: "heightfield", heights: heights as number[], rows: rows as number, cols: cols as number, size: [size[0], size[1]] };
}

/**
 * Reads a `shape` object at `path`. Sizes (sphere radius, box half extents, capsule and cylinder radius and
 * half height) are within minExtent..maxExtent; a compound child (`convexOnly`) must be a convex shape.
 * Returns undefined when anything is wrong (every problem reported).
 */
export function readShape(v: unknown, path: string, issues: IssueList, limits: ScenarioLimits, convexOnly = false): ShapeDef | undefined {
  if (!isObject(v)) {
    issues.add(path, "expected object");
    return undefined;
  }
  const type = own(v, "type");
  const typePath = keyPath(path, "type");
  const allowed: readonly string[] = convexOnly ? CONVEX_TYPES : SHAPE_TYPES;
  // Without a known type the allowed keys are unknown, so only the type is reported.
  if (type === undefined) {
    issues.add(typePath, "is required");
    return undefined;
  }
  if (typeof type !== "string" || !allowed.includes(type)) {
    const list = allowed.map((s) => JSON.stringify(s)).join(", ");
    const nested = convexOnly && (SHAPE_TYPES as readonly unknown[]).includes(type);
    issues.add(typePath, nested ? `a compound's child must be a convex shape (one of ${list}), not a ${type}` : `must be one of ${list}`);
    return undefined;
  }
  const shapeType = type as (typeof SHAPE_TYPES)[number];
  checkKeys(v, SHAPE_KEYS[shapeType], path, issues);
  const before = issues.total;
  const extentRule: NumberRule = { gt: 0, ge: limits.minExtent, le: limits.maxExtent };
  let shape: ShapeDef | undefined;
  switch (shapeType) {
    case "sphere": {
      const raw = required(v, "radius", path, issues);
      const radius = raw === undefined ? undefined : readNumber(raw, keyPath(path, "radius"), issues, extentRule);
      if (radius !== undefined) shape = { type: "sphere", radius };
      break;
    }
    case "box": {
      const raw = required(v, "halfExtents", path, issues);
      const halfExtents = raw === undefined ? undefined : readVector(raw, 3, keyPath(path, "halfExtents"), issues, extentRule);
      if (halfExtents !== undefined) shape = { type: "box", halfExtents: halfExtents as Vec3Tuple };
      break;
    }
    case "capsule":
    case "cylinder": {
      const round = readRound(v, path, issues, extentRule);
      if (round !== undefined) shape = { type: shapeType, radius: round[0], halfHeight: round[1] };
      break;
    }
    case "hull":
      shape = readHull(v, path, issues, limits);
      break;
    case "compound":
      shape = readCompound(v, path, issues, limits);
      break;
    case "mesh":
      shape = readMesh(v, path, issues, limits);
      break;
    case "heightfield":
      shape = readHeightfield(v, path, issues, limits);
      break;
  }
  return issues.total === before ? shape : undefined;
}

/**
 * Level geometry is never dynamic: a mesh may move only as a kinematic body (it has no volume to give it
 * mass), a height field not at all. Reported at the body's `type`, from the shape's `type` as written, so
 * it is reported even when the shape has problems of its own.
 */
export function checkShapeBodyType(rawShape: unknown, type: BodyType | undefined, typePath: string, issues: IssueList): void {
  const shapeType = isObject(rawShape) ? own(rawShape, "type") : undefined;
  if (shapeType === "mesh" && type === "dynamic") issues.add(typePath, "a mesh body must be static or kinematic");
  if (shapeType === "heightfield" && type !== undefined && type !== "static") issues.add(typePath, "a heightfield body must be static");
}

/**
 * Volume of a validated convex or compound shape, m³, by the engine's own mass rules (a dynamic body's
 * mass is its density times this). A compound's is the sum of its children's, as the engine combines them.
 */
export function shapeVolumeOf(shape: ShapeDef): number {
  switch (shape.type) {
    case "sphere":
      return sphereMassProperties(shape.radius).volume;
    case "box":
      return boxMassProperties(shape.halfExtents[0], shape.halfExtents[1], shape.halfExtents[2]).volume;
    case "capsule":
      return capsuleMassProperties(shape.radius, shape.halfHeight).volume;
    case "cylinder":
      return cylinderMassProperties(shape.radius, shape.halfHeight).volume;
    case "hull":
      return hullVolumes.get(shape) ?? hullMassProperties(buildHull(shape.points)).volume;
    case "compound":
      return shape.children.reduce((sum, child) => sum + shapeVolumeOf(child.shape), 0);
    default:
      // Meshes and height fields are never dynamic: they have no mass.
      return Number.NaN;
  }
}
