import type { ConvexHull } from "../../geometry/convex-hull.ts";

/** Kinds of convex proxy: the engine's convex shapes and a single triangle of a mesh or height field. */
export const PROXY_SPHERE = 0;
export const PROXY_BOX = 1;
export const PROXY_CAPSULE = 2;
export const PROXY_CYLINDER = 3;
export const PROXY_HULL = 4;
export const PROXY_TRIANGLE = 5;

/**
 * One convex piece placed in the world, as the general convex narrow phase reads it: a body's own shape,
 * one child of a compound, or one triangle. The caller fills a reused proxy per pair (no allocation).
 *
 * - sphere: radius = r. box: half = extents. capsule: radius = r, half[1] = segment half height (along
 *   the local y axis). cylinder: radius = r, half[1] = half height (local y). hull: `hull` (vertices
 *   in the proxy's local frame). triangle: `tri` holds the three corners in WORLD space (pos/rot unused),
 *   `triEdges` its active-edge bits (see TriangleSource).
 * - pos: world position of the local origin; rot: row-major world rotation (world = rot · local).
 * - id: a small number mixed into feature ids so that points of different children or triangles never
 *   share an id (warm starting matches points by id).
 */
export class ConvexProxy {
  kind = PROXY_SPHERE;
  radius = 0;
  readonly half = new Float64Array(3);
  hull: ConvexHull | null = null;
  readonly pos = new Float64Array(3);
  readonly rot = new Float64Array(9);
  readonly tri = new Float64Array(9);
  triEdges = 7;
  id = 0;
}
