import { CompoundGeometry } from "../geometry/compound.ts";
import type { ConvexHull } from "../geometry/convex-hull.ts";
import { HeightField } from "../geometry/heightfield.ts";
import { buildHull, transformHull } from "../geometry/hull-builder.ts";
import {
  boxMassProperties,
  capsuleMassProperties,
  combineMassProperties,
  cylinderMassProperties,
  hullMassProperties,
  type MassProperties,
  principalAxes,
  sphereMassProperties,
} from "../geometry/mass-properties.ts";
import { TriMesh } from "../geometry/trimesh.ts";
import { type ConvexShapeDef, type ShapeDef, ShapeTypeCode } from "../types.ts";

/** What a body keeps of a shape besides its code and `half`: the data of the shapes that need more. */
export type ShapeGeometry = ConvexHull | CompoundGeometry | TriMesh | HeightField;

/**
 * A shape made ready for a body: the engine stores every body in its centre-of-mass frame with the
 * principal axes of inertia as its axes (so the inertia stays a diagonal, as the solver and the gyroscopic
 * term expect), and places the shape's geometry in that frame. For spheres, boxes, capsules, cylinders
 * and every non-dynamic body that frame is the shape's own; a dynamic hull or compound may have its
 * centre of mass away from its origin and its principal axes turned, and `frame` says where the shape's
 * reference frame (what a scenario's position and rotation describe) sits in the centre-of-mass frame.
 */
export interface PreparedShape {
  code: number;
  /** As BodyStore.half: capsule/cylinder radius, half height, radius; hull, compound, mesh, height field: local bounds' half extents. */
  half: [number, number, number];
  geometry: ShapeGeometry | null;
  /** Centre of the local bounds in the centre-of-mass frame. */
  boundsCenter: [number, number, number];
  /** Radius about the centre of mass of a sphere holding the shape. */
  boundRadius: number;
  /** Volume (m³) and principal moments of inertia for density 1 (dynamic bodies only; else 0). */
  volume: number;
  moments: [number, number, number];
  /** The reference frame in the centre-of-mass frame, or null when they coincide. */
  frame: { position: [number, number, number]; rotation: [number, number, number, number] } | null;
}

interface ConvexPart {
  code: number;
  half: [number, number, number];
  hull: ConvexHull | null;
  bounds: { center: [number, number, number]; half: [number, number, number] };
  boundRadius: number;
  mass: MassProperties;
}

function convexPart(def: ConvexShapeDef): ConvexPart {
  switch (def.type) {
    case "sphere": {
      const r = def.radius;
      return { code: ShapeTypeCode.SPHERE, half: [r, r, r], hull: null, bounds: { center: [0, 0, 0], half: [r, r, r] }, boundRadius: r, mass: sphereMassProperties(r) };
    }
    case "box": {
      const [x, y, z] = def.halfExtents;
      return { code: ShapeTypeCode.BOX, half: [x, y, z], hull: null, bounds: { center: [0, 0, 0], half: [x, y, z] }, boundRadius: Math.sqrt(x * x + y * y + z * z), mass: boxMassProperties(x, y, z) };
    }
    case "capsule": {
      const { radius: r, halfHeight: h } = def;
      return { code: ShapeTypeCode.CAPSULE, half: [r, h, r], hull: null, bounds: { center: [0, 0, 0], half: [r, h + r, r] }, boundRadius: h + r, mass: capsuleMassProperties(r, h) };
    }
    case "cylinder": {
      const { radius: r, halfHeight: h } = def;
      return { code: ShapeTypeCode.CYLINDER, half: [r, h, r], hull: null, bounds: { center: [0, 0, 0], half: [r, h, r] }, boundRadius: Math.sqrt(r * r + h * h), mass: cylinderMassProperties(r, h) };
    }
    case "hull": {
      const hull = buildHull(def.points);
      const bounds = vertexBounds(hull);
      return { code: ShapeTypeCode.HULL, half: bounds.half, hull, bounds, boundRadius: hull.boundRadius, mass: hullMassProperties(hull) };
    }
  }
}

function vertexBounds(hull: ConvexHull): ConvexPart["bounds"] {
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < hull.vertexCount; i++) {
    for (let k = 0; k < 3; k++) {
      const v = hull.vertices[3 * i + k];
      lo[k] = Math.min(lo[k], v);
      hi[k] = Math.max(hi[k], v);
    }
  }
  return {
    center: [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])],
    half: [0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), 0.5 * (hi[2] - lo[2])],
  };
}

/** Prepares a shape for a body (`dynamic`: it needs mass properties and a centre-of-mass frame). */
export function prepareShape(def: ShapeDef, dynamic: boolean): PreparedShape {
  if (def.type === "mesh") {
    const mesh = new TriMesh(def.vertices, def.indices);
    return fromBounds(ShapeTypeCode.MESH, mesh, mesh.bounds);
  }
  if (def.type === "heightfield") {
    const field = new HeightField(def.heights, def.rows, def.cols, def.size[0], def.size[1]);
    return fromBounds(ShapeTypeCode.HEIGHTFIELD, field, field.bounds);
  }
  if (def.type === "compound") return prepareCompound(def.children, dynamic);
  const part = convexPart(def);
  const prepared: PreparedShape = {
    code: part.code,
    half: part.half,
    geometry: part.hull,
    boundsCenter: part.bounds.center,
    boundRadius: part.boundRadius,
    volume: 0,
    moments: [0, 0, 0],
    frame: null,
  };
  if (!dynamic) return prepared;
  const principal = principalFrame(part.mass);
  prepared.volume = part.mass.volume;
  prepared.moments = principal.moments;
  if (principal.frame === null || part.hull === null) return prepared;
  // Only a hull can be off-centre or have a full inertia tensor: move its vertices into the principal frame.
  const { position, rotation } = principal.frame;
  const hull = transformHull(part.hull, new Float64Array(position), new Float64Array(rotation));
  const bounds = vertexBounds(hull);
  prepared.geometry = hull;
  prepared.half = bounds.half;
  prepared.boundsCenter = bounds.center;
  prepared.boundRadius = hull.boundRadius;
  prepared.frame = principal.frame;
  return prepared;
}

function fromBounds(code: number, geometry: ShapeGeometry, b: Float64Array): PreparedShape {
  const half: [number, number, number] = [0.5 * (b[3] - b[0]), 0.5 * (b[4] - b[1]), 0.5 * (b[5] - b[2])];
  const center: [number, number, number] = [0.5 * (b[0] + b[3]), 0.5 * (b[1] + b[4]), 0.5 * (b[2] + b[5])];
  const far = [0, 1, 2].map((k) => Math.max(Math.abs(b[k]), Math.abs(b[k + 3])));
  return {
    code,
    half,
    geometry,
    boundsCenter: center,
    boundRadius: Math.sqrt(far[0] * far[0] + far[1] * far[1] + far[2] * far[2]),
    volume: 0,
    moments: [0, 0, 0],
    frame: null,
  };
}

/**
 * The principal frame of a mass distribution: its moments, and (unless it is the shape's own frame) the
 * shape's reference frame expressed in it (position -Uᵀc, rotation U⁻¹ for centre c and principal axes U).
 */
function principalFrame(mass: MassProperties): { moments: [number, number, number]; frame: PreparedShape["frame"] } {
  const { moments, rotation: u } = principalAxes(mass.inertia);
  const c = mass.center;
  const identity = u[0] === 0 && u[1] === 0 && u[2] === 0;
  if (identity && c[0] === 0 && c[1] === 0 && c[2] === 0) return { moments, frame: null };
  const inv: [number, number, number, number] = [-u[0], -u[1], -u[2], u[3]];
  const p = rotate(inv, [-c[0], -c[1], -c[2]]);
  return { moments, frame: { position: p, rotation: inv } };
}

function prepareCompound(children: readonly { shape: ConvexShapeDef; position?: readonly number[]; rotation?: readonly number[] }[], dynamic: boolean): PreparedShape {
  const parts = children.map((child) => convexPart(child.shape));
  const poses = children.map((child) => ({
    position: [...(child.position ?? [0, 0, 0])] as [number, number, number],
    rotation: normalized(child.rotation ?? [0, 0, 0, 1]),
  }));
  let moments: [number, number, number] = [0, 0, 0];
  let volume = 0;
  let frame: PreparedShape["frame"] = null;
  if (dynamic) {
    const mass = combineMassProperties(parts.map((part, i) => ({ props: part.mass, position: poses[i].position, rotation: poses[i].rotation })));
    const principal = principalFrame(mass);
    volume = mass.volume;
    moments = principal.moments;
    frame = principal.frame;
  }
  const geometry = new CompoundGeometry(parts.length);
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  let boundRadius = 0;
  parts.forEach((part, i) => {
    let position = poses[i].position;
    let rotation = poses[i].rotation;
    if (frame !== null) {
      // Child pose in the centre-of-mass frame: the reference frame's pose composed with the child's.
      const moved = rotate(frame.rotation, position);
      position = [moved[0] + frame.position[0], moved[1] + frame.position[1], moved[2] + frame.position[2]];
      rotation = multiply(frame.rotation, rotation);
    }
    geometry.kind[i] = part.code;
    geometry.half.set(part.half, 3 * i);
    geometry.hull[i] = part.hull;
    geometry.position.set(position, 3 * i);
    geometry.rotation.set(rotation, 4 * i);
    geometry.boundRadius[i] = part.boundRadius;
    // The child's bounds (a box about its own centre) turned into the body frame.
    const m = matrix(rotation);
    const c = rotate(rotation, part.bounds.center);
    const h = part.bounds.half;
    for (let k = 0; k < 3; k++) {
      const extent = Math.abs(m[3 * k]) * h[0] + Math.abs(m[3 * k + 1]) * h[1] + Math.abs(m[3 * k + 2]) * h[2];
      const centre = position[k] + c[k];
      lo[k] = Math.min(lo[k], centre - extent);
      hi[k] = Math.max(hi[k], centre + extent);
    }
    const d = Math.sqrt(position[0] * position[0] + position[1] * position[1] + position[2] * position[2]);
    boundRadius = Math.max(boundRadius, d + part.boundRadius);
  });
  return {
    code: ShapeTypeCode.COMPOUND,
    half: [0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), 0.5 * (hi[2] - lo[2])],
    geometry,
    boundsCenter: [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])],
    boundRadius,
    volume,
    moments,
    frame,
  };
}

function normalized(q: readonly number[]): [number, number, number, number] {
  const n = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  return n > 0 ? [q[0] / n, q[1] / n, q[2] / n, q[3] / n] : [0, 0, 0, 1];
}

/** q ⊗ v ⊗ q* for a unit quaternion (creation time only: allocates). */
export function rotate(q: readonly number[], v: readonly number[]): [number, number, number] {
  const [qx, qy, qz, qw] = q;
  const tx = 2 * (qy * v[2] - qz * v[1]);
  const ty = 2 * (qz * v[0] - qx * v[2]);
  const tz = 2 * (qx * v[1] - qy * v[0]);
  return [v[0] + qw * tx + (qy * tz - qz * ty), v[1] + qw * ty + (qz * tx - qx * tz), v[2] + qw * tz + (qx * ty - qy * tx)];
}

/** a ⊗ b. */
export function multiply(a: readonly number[], b: readonly number[]): [number, number, number, number] {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

function matrix(q: readonly number[]): number[] {
  const [x, y, z, w] = q;
  return [
    1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
    2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
    2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
  ];
}
