import type { ConvexHull } from "./convex-hull.ts";

/**
 * The convex children of a compound body, in the body's centre-of-mass frame (the frame its pose
 * describes). Built once at creation; the narrow phase places each child with the body's pose.
 * Child kinds are ShapeTypeCode values of the convex shapes (sphere, box, capsule, cylinder, hull).
 */
export class CompoundGeometry {
  readonly childCount: number;
  readonly kind: Uint8Array;
  /** Per child, as BodyStore.half: box half extents; sphere radius; capsule/cylinder radius, half height, radius. */
  readonly half: Float64Array;
  readonly hull: (ConvexHull | null)[];
  /** Child origin (xyz) and orientation (xyzw) in the body frame. */
  readonly position: Float64Array;
  readonly rotation: Float64Array;
  /** Radius of a sphere about the child's origin that holds the child. */
  readonly boundRadius: Float64Array;

  constructor(count: number) {
    this.childCount = count;
    this.kind = new Uint8Array(count);
    this.half = new Float64Array(3 * count);
    this.hull = new Array<ConvexHull | null>(count).fill(null);
    this.position = new Float64Array(3 * count);
    this.rotation = new Float64Array(4 * count);
    this.boundRadius = new Float64Array(count);
  }
}
