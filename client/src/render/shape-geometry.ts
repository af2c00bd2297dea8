import {
  BoxGeometry,
  BufferGeometry,
  CapsuleGeometry,
  CylinderGeometry,
  Float32BufferAttribute,
  Group,
  type Material,
  Mesh,
  type Object3D,
  SphereGeometry,
} from "three";
import { buildHull } from "../../../shared/engine/geometry/hull-builder.ts";
import type {
  ConvexShapeDef,
  HeightfieldShapeDef,
  HullShapeDef,
  MeshShapeDef,
  ShapeDef,
} from "../../../shared/engine/types.ts";

/**
 * Segments (around, top to bottom) of the sphere geometry: fine where a ball may fill the view, coarser in
 * a crowd. Every sphere shares one geometry, and rain2000's 2000 balls at the fine detail are 4 million
 * triangles a frame with the shadow pass: software WebGL (Chromium without a GPU) drew about one frame
 * a second and its socket fell behind; the coarse detail is a third of the triangles and looks the same
 * from where a crowd is seen.
 */
const SPHERE_SEGMENTS_FINE = [28, 18] as const;
const SPHERE_SEGMENTS_CROWD = [16, 10] as const;

/**
 * three.js objects for the engine's shapes, in the body's reference frame (the shape's origin, the pose
 * the wire carries), so a body's object is placed with its pose as it is:
 * - sphere and box: one shared unit geometry, scaled (as many bodies as the room has, two geometries);
 * - capsule: CapsuleGeometry (radius, length 2·halfHeight between the caps' centres), along y;
 * - cylinder: CylinderGeometry along y;
 * - hull: the engine's own hull of the points (buildHull), each CCW face polygon fanned into triangles,
 *   so what is drawn is exactly what collides;
 * - compound: a Group holding each child at its position and rotation;
 * - mesh: the triangles as given;
 * - heightfield: the engine's grid (row r along z, column c along x, centred, heights added to y), each
 *   cell split along the same diagonal as the engine's (A = (r, c) to D = (r+1, c+1)).
 * Hulls, meshes and height fields get flat normals (one per triangle): faceted, as the engine sees them.
 * Geometries are cached by shape definition, so equal shapes share one.
 */
export class ShapeGeometries {
  private readonly box = new BoxGeometry(1, 1, 1);
  private readonly sphere = new SphereGeometry(1, ...SPHERE_SEGMENTS_FINE);
  private crowded = false;
  private readonly cache = new Map<string, BufferGeometry>();

  /** The spheres' detail now: "fine" or "crowd" (setCrowded). */
  get sphereDetail(): "fine" | "crowd" {
    return this.crowded ? "crowd" : "fine";
  }

  /** Switches every sphere, drawn or to come, to the crowd's detail or back (they share one geometry). */
  setCrowded(crowded: boolean): void {
    if (crowded === this.crowded) return;
    this.crowded = crowded;
    // Same geometry object, new vertices: the renderer drops the old buffers and uploads these.
    this.sphere.dispose();
    this.sphere.copy(new SphereGeometry(1, ...(crowded ? SPHERE_SEGMENTS_CROWD : SPHERE_SEGMENTS_FINE)));
  }

  /** A Mesh (or, for a compound, a Group of Meshes) drawing `def` with `material`. */
  create(def: ShapeDef, material: Material): Object3D {
    if (def.type === "compound") {
      const group = new Group();
      for (const child of def.children) {
        const mesh = this.convex(child.shape, material);
        const p = child.position ?? [0, 0, 0];
        const q = child.rotation ?? [0, 0, 0, 1];
        mesh.position.set(p[0], p[1], p[2]);
        mesh.quaternion.set(q[0], q[1], q[2], q[3]).normalize();
        group.add(mesh);
      }
      group.userData.shape = "compound";
      return group;
    }
    if (def.type === "mesh" || def.type === "heightfield") {
      const mesh = new Mesh(this.cached(def, () => (def.type === "mesh" ? triangleMeshGeometry(def) : heightfieldGeometry(def))), material);
      mesh.userData.shape = def.type;
      return mesh;
    }
    return this.convex(def, material);
  }

  private convex(def: ConvexShapeDef, material: Material): Mesh {
    let mesh: Mesh;
    switch (def.type) {
      case "sphere":
        mesh = new Mesh(this.sphere, material);
        mesh.scale.setScalar(def.radius);
        break;
      case "box":
        mesh = new Mesh(this.box, material);
        mesh.scale.set(2 * def.halfExtents[0], 2 * def.halfExtents[1], 2 * def.halfExtents[2]);
        break;
      case "capsule":
        mesh = new Mesh(
          this.cached(def, () => new CapsuleGeometry(def.radius, 2 * def.halfHeight, 8, 20)),
          material,
        );
        break;
      case "cylinder":
        mesh = new Mesh(
          this.cached(def, () => new CylinderGeometry(def.radius, def.radius, 2 * def.halfHeight, 28)),
          material,
        );
        break;
      case "hull":
        mesh = new Mesh(this.cached(def, () => hullGeometry(def)), material);
        break;
    }
    mesh.userData.shape = def.type;
    return mesh;
  }

  private cached(def: ShapeDef, build: () => BufferGeometry): BufferGeometry {
    const key = JSON.stringify(def);
    let geometry = this.cache.get(key);
    if (geometry === undefined) {
      geometry = build();
      this.cache.set(key, geometry);
    }
    return geometry;
  }
}

/**
 * Distance from the shape's origin to its farthest point, metres (for framing the camera, and to tell
 * large static slabs from ordinary bodies).
 */
export function shapeReach(def: ShapeDef): number {
  switch (def.type) {
    case "sphere":
      return def.radius;
    case "box":
      return Math.hypot(def.halfExtents[0], def.halfExtents[1], def.halfExtents[2]);
    case "capsule":
      return def.halfHeight + def.radius;
    case "cylinder":
      return Math.hypot(def.radius, def.halfHeight);
    case "hull":
      return farthest(def.points);
    case "mesh":
      return farthest(def.vertices);
    case "compound": {
      let reach = 0;
      for (const c of def.children) {
        const p = c.position ?? [0, 0, 0];
        reach = Math.max(reach, Math.hypot(p[0], p[1], p[2]) + shapeReach(c.shape));
      }
      return reach;
    }
    case "heightfield": {
      let h = 0;
      for (const y of def.heights) h = Math.max(h, Math.abs(y));
      return Math.hypot(def.size[0] / 2, h, def.size[1] / 2);
    }
  }
}

function farthest(points: readonly (readonly number[])[]): number {
  let r = 0;
  for (const p of points) r = Math.max(r, Math.hypot(p[0], p[1], p[2]));
  return r;
}

/** A non-indexed geometry from a flat list of triangle corners (x, y, z each), with one normal per triangle. */
function flatGeometry(corners: number[]): BufferGeometry {
  const geometry = new BufferGeometry();
  geometry.setAttribute("position", new Float32BufferAttribute(corners, 3));
  geometry.computeVertexNormals();
  geometry.computeBoundingSphere();
  return geometry;
}

function hullGeometry(def: HullShapeDef): BufferGeometry {
  const hull = buildHull(def.points);
  const v = hull.vertices;
  const corners: number[] = [];
  for (let f = 0; f < hull.faceCount; f++) {
    const start = hull.faceStart[f];
    const end = hull.faceStart[f + 1];
    // A convex polygon, counter-clockwise from outside: a fan from its first vertex keeps that winding.
    const a = hull.faceVertices[start] * 3;
    for (let k = start + 1; k + 1 < end; k++) {
      const b = hull.faceVertices[k] * 3;
      const c = hull.faceVertices[k + 1] * 3;
      corners.push(v[a], v[a + 1], v[a + 2], v[b], v[b + 1], v[b + 2], v[c], v[c + 1], v[c + 2]);
    }
  }
  return flatGeometry(corners);
}

function triangleMeshGeometry(def: MeshShapeDef): BufferGeometry {
  const corners: number[] = [];
  for (const tri of def.indices) {
    for (const i of tri) {
      const p = def.vertices[i];
      corners.push(p[0], p[1], p[2]);
    }
  }
  return flatGeometry(corners);
}

function heightfieldGeometry(def: HeightfieldShapeDef): BufferGeometry {
  const { rows, cols, heights } = def;
  const [sizeX, sizeZ] = def.size;
  const x = (c: number) => -sizeX / 2 + (c * sizeX) / (cols - 1);
  const z = (r: number) => -sizeZ / 2 + (r * sizeZ) / (rows - 1);
  const corners: number[] = [];
  const corner = (r: number, c: number) => corners.push(x(c), heights[r * cols + c], z(r));
  for (let r = 0; r + 1 < rows; r++) {
    for (let c = 0; c + 1 < cols; c++) {
      // A = (r, c), B = (r, c+1), C = (r+1, c), D = (r+1, c+1): triangles (A, D, B) and (A, C, D),
      // counter-clockwise seen from +y.
      corner(r, c);
      corner(r + 1, c + 1);
      corner(r, c + 1);
      corner(r, c);
      corner(r + 1, c);
      corner(r + 1, c + 1);
    }
  }
  return flatGeometry(corners);
}
